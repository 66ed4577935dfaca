package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * OpenAI and the APIs that copied its fields (Azure OpenAI, Groq, Mistral, ...): one policy per
 * family of {@code x-ratelimit-limit-<family>}, {@code x-ratelimit-remaining-<family>},
 * {@code x-ratelimit-reset-<family>}, e.g. {@code requests}, {@code tokens},
 * {@code tokens_usage_based}, Mistral's {@code req-minute} and {@code tokens-month}. Any of the
 * three fields names a family (Azure OpenAI's 429 carries only {@code x-rate-limit-reset-tokens}
 * for the family that denied; the {@code rate-limit} spelling is the same field, see
 * {@link DialectInput}). The reset is a Go duration ({@code 6m0s}, {@code 20ms},
 * {@code 2m59.56s}: R05) or plain seconds ({@code 55}), the time until the bucket is full again.
 * Id {@code openai}.
 *
 * <p>The family name says the unit and, when it ends in a period, the window
 * ({@link #unitOf(String)}, {@link #windowOf(String)}): {@code req-minute} is requests per 60 s,
 * {@code tokens-day} tokens per 86,400 s, {@code tokens-month} tokens per calendar month (no fixed
 * window; a quota policy by its name).
 *
 * <p>A family whose limit is negative ({@code -1}: Azure OpenAI's "not reported") reports nothing
 * and is dropped; a negative or malformed reset ({@code -43}, R02) is left unknown. Sent twice, a
 * field gives its lowest count and its longest reset (SPEC §2.4).
 *
 * <p>A body whose {@code error.code} or {@code error.type} is {@code insufficient_quota} is a spent
 * billing quota: {@code quota_exhausted}, never retried (R08a).
 */
public final class OpenAiDialect implements Dialect {

    public static final OpenAiDialect INSTANCE = new OpenAiDialect();

    private static final String LIMIT = "x-ratelimit-limit-";
    private static final String REMAINING = "x-ratelimit-remaining-";
    private static final String RESET = "x-ratelimit-reset-";

    private OpenAiDialect() {
    }

    @Override
    public String id() {
        return "openai";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        Set<String> families = new LinkedHashSet<>();
        for (String name : in.names()) {
            for (String prefix : new String[] {LIMIT, REMAINING, RESET}) {
                if (name.startsWith(prefix) && name.length() > prefix.length()) {
                    String family = name.substring(prefix.length());
                    if (!(prefix.equals(RESET) && family.equals("after"))) { // Discord's x-ratelimit-reset-after
                        families.add(family);
                    }
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
                    .windowSeconds(windowOf(family))
                    .quotaUnit(unitOf(family));
            ResetUnit.DELTA_SECONDS.applyLongest(in.members(RESET + family), in.responseTime(), p);
            r.policy(p.build());
        }
        if (insufficientQuota) {
            r.outcome(Outcome.QUOTA_EXHAUSTED).violatedPolicy("insufficient_quota");
        }
        return Optional.of(r.build());
    }

    /**
     * The unit a family counts: {@code requests} for {@code requests}, {@code req-minute},
     * {@code rpm}, ...; {@code tokens} for {@code tokens}, {@code input-tokens},
     * {@code tokens_usage_based}, {@code tpm}, ...; otherwise {@code null} (not guessed).
     */
    static String unitOf(String family) {
        String[] words = words(family);
        for (String w : words) {
            if (w.startsWith("token") || w.equals("tpm") || w.equals("tpd") || w.equals("tps") || w.equals("tph")) {
                return "tokens";
            }
        }
        String first = words.length == 0 ? "" : words[0];
        if (first.equals("req") || first.equals("reqs") || first.startsWith("request")
                || first.equals("rpm") || first.equals("rpd") || first.equals("rps") || first.equals("rph")) {
            return "requests";
        }
        return null;
    }

    /**
     * The window a family's name states, in seconds: a last word {@code second}, {@code minute},
     * {@code hour}, {@code day}, {@code week} (or {@code min}, {@code sec}, plurals), or the
     * abbreviations {@code rpm}/{@code tpm} (60 s), {@code rpd}/{@code tpd} (86,400 s),
     * {@code rps}/{@code tps}, {@code rph}/{@code tph}; {@code null} when the name states none or a
     * period of varying length ({@code month}).
     */
    static Long windowOf(String family) {
        String[] words = words(family);
        if (words.length == 0) {
            return null;
        }
        String last = words[words.length - 1];
        return switch (last) {
            case "second", "seconds", "sec", "secs", "rps", "tps" -> 1L;
            case "minute", "minutes", "min", "mins", "rpm", "tpm" -> 60L;
            case "hour", "hours", "hr", "rph", "tph" -> 3_600L;
            case "day", "days", "daily", "rpd", "tpd" -> 86_400L;
            case "week", "weeks", "weekly" -> 604_800L;
            default -> null;
        };
    }

    private static String[] words(String family) {
        return family.toLowerCase(Locale.ROOT).split("[-_]+");
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
