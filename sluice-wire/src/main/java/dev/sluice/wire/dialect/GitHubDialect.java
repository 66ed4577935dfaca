package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * GitHub REST: {@code x-ratelimit-limit}, {@code -remaining}, {@code -used}, {@code -reset} (Unix
 * epoch seconds, converted with the response's {@code Date}: R04) and {@code x-ratelimit-resource}
 * (the policy name: {@code core}, {@code search}, ...). Id {@code github}.
 *
 * <p>Recognised by the fields only GitHub sends ({@code x-ratelimit-resource},
 * {@code x-github-request-id}, {@code Server: GitHub.com}), by a body that mentions a secondary
 * rate limit, or by {@code x-ratelimit-used} with a reset that reads as an epoch. Reddit sends
 * {@code x-ratelimit-used} too, with a reset in delta seconds ("number of seconds to end of
 * period", Reddit API wiki): that response is left to the generic {@code x-ratelimit} dialect.
 * Whatever matched, the reset is read as epoch seconds only when it is a plausible epoch
 * ({@link ResetUnit}), so a delta reset is never read as a 1970 instant.
 *
 * <p>GitHub sends rate limits as 403 as well as 429 (GitHub REST docs, "Rate limits for the REST
 * API"). A 403 is a rate limit when {@code remaining} is 0 (primary), when it carries
 * {@code Retry-After} or a body naming a secondary rate limit, or when its body was not read:
 * a secondary limit leaves {@code remaining} above 0 and cannot be excluded then (header vector
 * {@code github-secondary-403-search}). A 403 whose body says something else is a client error.
 * Secondary limits have no policy of their own; their wait comes from {@code Retry-After}.
 */
public final class GitHubDialect implements Dialect {

    public static final GitHubDialect INSTANCE = new GitHubDialect();

    private GitHubDialect() {
    }

    @Override
    public String id() {
        return "github";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        String server = in.header("Server");
        boolean secondaryBody = mentionsSecondaryLimit(in.body());
        boolean recognised = in.has("x-ratelimit-resource") || in.has("x-github-request-id")
                || (in.has("x-ratelimit-used") && epochOrNoReset(in))
                || (server != null && server.toLowerCase(Locale.ROOT).contains("github"))
                || secondaryBody;
        if (!recognised) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        String resource = in.header("x-ratelimit-resource");
        r.attribute("resource", resource);

        boolean hasPolicy = in.has("x-ratelimit-limit") || in.has("x-ratelimit-remaining")
                || in.has("x-ratelimit-reset");
        Long remaining = in.count("x-ratelimit-remaining");
        if (hasPolicy) {
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(resource)
                    .quota(in.count("x-ratelimit-limit"))
                    .remaining(remaining)
                    .used(in.usedCount("x-ratelimit-used"))
                    .quotaUnit("requests")
                    // hourly primary limit, but GitHub calls its exhaustion a rate limit: not a quota
                    .kind(PolicySnapshot.PolicyKind.UNKNOWN);
            ResetUnit.EPOCH_SECONDS.applyLongest(in.members("x-ratelimit-reset"), in.responseTime(), p);
            r.policy(p.build());
        }

        int status = in.status();
        if (status == 403 || status == 429) {
            if (secondaryBody) {
                r.attribute("limit", "secondary");
                r.outcome(Outcome.RATE_LIMITED);
            } else if (remaining != null && remaining == 0) {
                r.attribute("limit", "primary");
                r.outcome(Outcome.RATE_LIMITED);
            } else if (status == 429 || in.has("Retry-After") || (in.body() == null && hasPolicy)) {
                r.outcome(Outcome.RATE_LIMITED);
            } else if (!Signals.saysRateLimited(in.body())) {
                r.outcome(Outcome.CLIENT_ERROR);
            }
        }
        return Optional.of(r.build());
    }

    /** GitHub's reset is always epoch seconds: a used count beside a delta reset is someone else. */
    private static boolean epochOrNoReset(DialectInput in) {
        List<String> resets = in.members("x-ratelimit-reset");
        return resets.isEmpty() || ResetUnit.EPOCH_SECONDS.readsAsAbsolute(resets.get(0), in.responseTime());
    }

    private static boolean mentionsSecondaryLimit(@Nullable String body) {
        if (body == null) {
            return false;
        }
        String b = body.length() > 4096 ? body.substring(0, 4096) : body;
        return b.toLowerCase(Locale.ROOT).contains("secondary rate limit");
    }
}
