package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.util.Optional;

/**
 * Discord: {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (epoch seconds with
 * fraction), {@code -Reset-After} (seconds with fraction, the wait itself), {@code -Bucket} (the
 * policy name), {@code -Scope} ({@code user}, {@code global}, {@code shared}) and {@code -Global};
 * on a 429 the body's {@code retry_after} (float seconds) is the precise wait and takes precedence
 * over the integer-rounded {@code Retry-After}. Id {@code discord}.
 *
 * <p>Attributes: {@code bucket}, {@code scope}, {@code global}.
 */
public final class DiscordDialect implements Dialect {

    public static final DiscordDialect INSTANCE = new DiscordDialect();

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);

    private DiscordDialect() {
    }

    @Override
    public String id() {
        return "discord";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        JsonNode json = in.status() >= 400 ? in.json().orElse(null) : null;
        JsonNode discordJson = json != null && json.isObject() && json.has("retry_after")
                && json.path("global").isBoolean() ? json : null;
        boolean discordBody = discordJson != null;
        boolean discordHeaders = in.has("x-ratelimit-bucket") || in.has("x-ratelimit-reset-after")
                || in.has("x-ratelimit-scope") || in.has("x-ratelimit-global");
        if (!discordHeaders && !discordBody) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        String bucket = in.header("x-ratelimit-bucket");
        r.attribute("bucket", bucket);
        r.attribute("scope", in.header("x-ratelimit-scope"));
        boolean global = "true".equalsIgnoreCase(in.header("x-ratelimit-global"))
                || (discordJson != null && discordJson.get("global").booleanValue());
        if (global) {
            r.attribute("global", "true");
        }
        if (in.has("x-ratelimit-limit") || in.has("x-ratelimit-remaining") || in.has("x-ratelimit-reset-after")) {
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(bucket)
                    .quota(in.count("x-ratelimit-limit"))
                    .remaining(in.count("x-ratelimit-remaining"))
                    .quotaUnit("requests");
            ResetUnit.EPOCH_SECONDS.applyLongest(in.members("x-ratelimit-reset"), in.responseTime(), p);
            Duration after = null;
            for (String m : in.members("x-ratelimit-reset-after")) {
                Duration d = WireNumbers.parseDecimal(m, SECOND, MILLI);
                if (d != null && (after == null || d.compareTo(after) > 0)) {
                    after = d; // sent twice: the longest (SPEC §2.4)
                }
            }
            if (after != null) {
                ResetUnit.delta(after, in.responseTime(), p); // the server's own wait beats the epoch's
            }
            r.policy(p.build());
        }
        if (discordJson != null) {
            String seconds = Signals.plainNumber(discordJson.get("retry_after"));
            Duration wait = WireNumbers.parseDecimal(seconds, SECOND, MILLI);
            if (wait != null) {
                r.retryAfter(wait);
            }
            if (global && !in.has("x-ratelimit-scope")) {
                r.attribute("scope", "global");
            }
        }
        return Optional.of(r.build());
    }
}
