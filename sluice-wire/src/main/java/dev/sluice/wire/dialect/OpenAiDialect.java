package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.GoDuration;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * OpenAI (and the OpenAI-compatible APIs: Azure OpenAI, Groq, ...): one policy per family of
 * {@code x-ratelimit-limit-<family>}, {@code x-ratelimit-remaining-<family>},
 * {@code x-ratelimit-reset-<family>} (a family needs its limit or remaining field), e.g. {@code requests}, {@code tokens},
 * {@code tokens_usage_based}. The reset is a Go duration ({@code 6m0s}, {@code 20ms},
 * {@code 2m59.56s}: R05), the time until the bucket is full again. Id {@code openai}.
 *
 * <p>A family whose limit is negative ({@code -1}: Azure OpenAI's "not reported") reports nothing
 * and is dropped; a negative or malformed reset ({@code -43}, R02) is left unknown.
 *
 * <p>A body whose {@code error.code} or {@code error.type} is {@code insufficient_quota} is a spent
 * billing quota: {@code quota_exhausted}, never retried (R08a).
 */
public final class OpenAiDialect implements Dialect {

    public static final OpenAiDialect INSTANCE = new OpenAiDialect();

    private static final String LIMIT = "x-ratelimit-limit-";
    private static final String REMAINING = "x-ratelimit-remaining-";
    private static final String RESET = "x-ratelimit-reset-";
    private static final Duration MILLI = Duration.ofMillis(1);

    private OpenAiDialect() {
    }

    @Override
    public String id() {
        return "openai";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        // a family needs its limit or remaining field: Discord's x-ratelimit-reset-after is no family
        Set<String> families = new LinkedHashSet<>();
        for (String name : in.headers().names()) {
            for (String prefix : new String[] {LIMIT, REMAINING}) {
                if (name.startsWith(prefix) && name.length() > prefix.length()) {
                    families.add(name.substring(prefix.length()));
                }
            }
        }
        boolean insufficientQuota = in.status() >= 400 && insufficientQuota(in.json().orElse(null));
        if (families.isEmpty() && !insufficientQuota) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        for (String family : families) {
            String limitText = in.header(LIMIT + family);
            String remainingText = in.header(REMAINING + family);
            if (isNegative(limitText) && (remainingText == null || isNegative(remainingText))) {
                continue; // Azure OpenAI's -1 sentinel: not reported
            }
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(family)
                    .quota(in.count(LIMIT + family))
                    .remaining(in.count(REMAINING + family))
                    .quotaUnit(family.toLowerCase(Locale.ROOT).startsWith("request") ? "requests" : "tokens");
            Duration reset = resetDuration(in.header(RESET + family));
            if (reset != null) {
                ResetUnit.delta(reset, in.responseTime(), p);
            }
            r.policy(p.build());
        }
        if (insufficientQuota) {
            r.outcome(Outcome.QUOTA_EXHAUSTED).violatedPolicy("insufficient_quota");
        }
        return Optional.of(r.build());
    }

    /** A Go duration, or plain (possibly fractional) seconds; rounded up to milliseconds. */
    static Duration resetDuration(String value) {
        if (value == null) {
            return null;
        }
        Duration d = WireNumbers.isDecimal(value)
                ? WireNumbers.parseDecimal(value, Duration.ofSeconds(1), MILLI)
                : GoDuration.parse(value);
        return d == null ? null : WireNumbers.roundUp(d, MILLI);
    }

    private static boolean isNegative(String value) {
        return value != null && value.strip().startsWith("-");
    }

    private static boolean insufficientQuota(JsonNode json) {
        if (json == null) {
            return false;
        }
        return "insufficient_quota".equals(Signals.text(json, "error", "code"))
                || "insufficient_quota".equals(Signals.text(json, "error", "type"));
    }
}
