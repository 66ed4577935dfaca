package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

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
                    if (!FIELD_WORDS.contains(family)) {
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
            Long window = windowOf(family);
            Long quota = in.count(LIMIT + family);
            long[] rate = window == null ? null : rate(limitText, window);
            if (rate != null) {
                quota = rate[0]; // 0.5 per second is 5 per 10 s: a decimal rate read exactly
                window = rate[1];
            }
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(family)
                    .quota(quota)
                    .remaining(in.count(REMAINING + family))
                    .windowSeconds(window)
                    .quotaUnit(unitOf(family));
            ResetUnit.DELTA_SECONDS.applyLongest(in.members(RESET + family), in.responseTime(), p);
            PolicySnapshot policy = p.build();
            if (policy.quota() != null || policy.remaining() != null || policy.resetIn() != null) {
                r.policy(policy); // a family of garbage alone reports nothing; the others stand
            }
        }
        plainFamily(in, r);
        if (insufficientQuota) {
            r.outcome(Outcome.QUOTA_EXHAUSTED).violatedPolicy("insufficient_quota");
        }
        return Optional.of(r.build());
    }

    /**
     * The plain {@code x-ratelimit-limit} / {@code -remaining} / {@code -reset} family on the same
     * response (Kong's {@code X-RateLimit-Limit-Minute} beside the upstream's own
     * {@code X-RateLimit-Limit: 5000}; HelloSign's {@code x-ratelimit-limit-remaining}), read the way
     * the GitHub or the generic {@code x-ratelimit} dialect reads it, and added after the suffixed
     * families: every family on a response counts.
     */
    private static void plainFamily(DialectInput in, DialectReading.Builder r) {
        if (!in.has("x-ratelimit-limit") && !in.has("x-ratelimit-remaining") && !in.has("x-ratelimit-reset")) {
            return;
        }
        Optional<DialectReading> reading = GitHubDialect.INSTANCE.read(in);
        if (reading.isEmpty()) {
            reading = XRateLimitDialect.standard().read(in);
        }
        reading.ifPresent(d -> {
            d.policies().forEach(r::policy);
            d.attributes().forEach(r::attribute);
            if (d.outcome() != null) {
                r.outcome(d.outcome());
            }
        });
    }

    /** Field words that follow {@code x-ratelimit-limit-} etc. without naming a family. */
    private static final Set<String> FIELD_WORDS = Set.of("after", "remaining", "reset", "used", "limit");

    /**
     * A limit with a fraction ({@code 0.5}, {@code 2.25}) as whole units over a longer window:
     * {@code {5, 10}} for 0.5 per second; {@code null} for a whole number, a non-decimal, or a
     * window that would pass 10<sup>9</sup> s.
     */
    static long @Nullable [] rate(@Nullable String value, long window) {
        if (value == null) {
            return null;
        }
        String v = value.strip();
        int dot = v.indexOf('.');
        if (dot < 0 || !WireNumbers.isDecimal(v)) {
            return null;
        }
        String fraction = v.substring(dot + 1);
        int end = fraction.length();
        while (end > 0 && fraction.charAt(end - 1) == '0') {
            end--;
        }
        if (end == 0) {
            return null; // 50.00 is 50: parseDecimalCount reads it
        }
        if (end > 6) {
            end = 6; // a millionth is precision enough; the rest is rounded down, never overstated
        }
        long scale = 1;
        for (int i = 0; i < end; i++) {
            scale *= 10;
        }
        long whole = WireNumbers.parseCount(v.substring(0, dot).isEmpty() ? "0" : v.substring(0, dot));
        long part = WireNumbers.parseCount(fraction.substring(0, end));
        if (whole < 0 || part < 0 || whole > Long.MAX_VALUE / scale - 1 || window > 1_000_000_000L / scale) {
            return null;
        }
        long q = whole * scale + part;
        long w = window * scale;
        long g = gcd(q, w);
        return new long[] {q / g, w / g};
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a == 0 ? 1 : a;
    }

    /**
     * The unit a family counts: {@code requests} for {@code requests}, {@code req-minute},
     * {@code rpm}, ...; {@code tokens} for {@code tokens}, {@code input-tokens},
     * {@code tokens_usage_based}, {@code tpm}, ...; otherwise {@code null} (not guessed).
     */
    static @Nullable String unitOf(String family) {
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
    static @Nullable Long windowOf(String family) {
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

    private static boolean isNegative(@Nullable String value) {
        return value != null && value.strip().startsWith("-");
    }

    private static boolean insufficientQuota(@Nullable JsonNode json) {
        if (json == null) {
            return false;
        }
        return "insufficient_quota".equals(Signals.text(json, "error", "code"))
                || "insufficient_quota".equals(Signals.text(json, "error", "type"));
    }
}
