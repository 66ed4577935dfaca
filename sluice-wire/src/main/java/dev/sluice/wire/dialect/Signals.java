package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.value.GoDuration;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Small readers shared by the dialects: words in error texts that mean "rate limited" or "quota
 * spent", and null-safe JSON lookups.
 */
final class Signals {

    private static final String[] LIMIT_PHRASES = {
        "rate limit", "rate-limit", "ratelimit", "rate_limit", "too many requests", "too fast",
        "queries exceeded", "requests exceeded", "throttl", "slow down", "being rate limited",
    };
    private static final String[] QUOTA_PHRASES = {
        "daily limit", "daily quota", "per day", "per-day", "monthly limit", "monthly quota",
        "per month", "insufficient_quota", "out of credit", "out-of-credit", "enough credit",
        "credits exhausted", "billing hard limit", "per_day", "perday",
    };
    /** Words that say shared capacity, not the caller's own allowance, is short. */
    private static final String[] CAPACITY_PHRASES = {
        "overloaded", "over capacity", "at capacity", "out of capacity", "insufficient capacity",
        "no capacity", "capacity constraint", "high demand", "experiencing high traffic",
    };

    /** A positive value beyond any wait, which the duration readers saturate (R03). */
    private static final String SATURATED = "99999999999999999999";
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);

    private Signals() {
    }

    /** True when {@code text} says, in words servers use, that a rate limit was hit. */
    static boolean saysRateLimited(@Nullable String text) {
        return containsAny(text, LIMIT_PHRASES);
    }

    /** True when {@code text} says a daily/monthly quota or credit is spent. */
    static boolean saysQuotaSpent(@Nullable String text) {
        return containsAny(text, QUOTA_PHRASES);
    }

    /** True when {@code text} says that shared capacity is short ("overloaded", "high demand", ...). */
    static boolean saysCapacityShort(@Nullable String text) {
        return containsAny(text, CAPACITY_PHRASES);
    }

    private static boolean containsAny(@Nullable String text, String[] phrases) {
        if (text == null || text.isEmpty()) {
            return false;
        }
        String t = text.length() > 4096 ? text.substring(0, 4096) : text;
        t = t.toLowerCase(Locale.ROOT);
        for (String p : phrases) {
            if (t.contains(p)) {
                return true;
            }
        }
        return false;
    }

    /** The node at {@code path}, or {@code null}. */
    static @Nullable JsonNode at(@Nullable JsonNode node, String... path) {
        @Nullable JsonNode n = node;
        for (String p : path) {
            if (n == null || !n.isObject()) {
                return null;
            }
            n = n.get(p);
        }
        return n;
    }

    /** The text at {@code path}, or {@code null} when absent or not a string. */
    static @Nullable String text(@Nullable JsonNode node, String... path) {
        JsonNode n = at(node, path);
        return n != null && n.isTextual() ? n.textValue() : null;
    }

    /** The value at {@code path} as text when it is a string or a number, else {@code null}. */
    static @Nullable String scalar(@Nullable JsonNode node, String... path) {
        JsonNode n = at(node, path);
        if (n == null) {
            return null;
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        return n.isNumber() ? n.asText() : null;
    }

    /**
     * A JSON number as plain decimal text ({@code 64.57}, {@code 41200}), or {@code null}. A literal
     * too large for a double ({@code 1e400}) reads as infinity and comes back as a huge integer,
     * which callers saturate; a negative one is returned negative, for callers to reject.
     */
    static @Nullable String plainNumber(@Nullable JsonNode n) {
        if (n == null || !n.isNumber()) {
            return null;
        }
        if (n.isFloatingPointNumber() && !n.isBigDecimal() && !Double.isFinite(n.doubleValue())) {
            return n.doubleValue() > 0 ? SATURATED : null;
        }
        if (n.isBigInteger() && n.bigIntegerValue().bitLength() > 63) {
            // a 5,000-digit literal: saturate without printing it (R03), never vanish
            return n.bigIntegerValue().signum() > 0 ? SATURATED : null;
        }
        return n.decimalValue().stripTrailingZeros().toPlainString();
    }

    /**
     * The longest wait a JSON error body states in a {@code retry_after}-like member, wherever it
     * sits: top level ({@code retry_after}, {@code retryAfter}), under {@code error}, Telegram's
     * {@code parameters}, an {@code errors} array, ... (objects and arrays up to four levels deep).
     * Member names are compared without case, {@code _} or {@code -}: {@code retry_after},
     * {@code retryAfter}, {@code Retry-After}, {@code retry_after_seconds} and
     * {@code retry_after_s} are seconds; {@code retry_after_ms}, {@code retryAfterMillis} are
     * milliseconds. A value is a JSON number or a string holding a decimal or a Go duration
     * ({@code "1m0s"}); seconds are kept to the millisecond, rounded up. Negative and malformed
     * values are skipped; huge ones saturate at {@link WireNumbers#MAX_DURATION} (R03).
     *
     * @return the longest such wait, or {@code null} when there is none
     */
    static @Nullable Duration bodyRetryAfter(@Nullable JsonNode json) {
        return json == null ? null : longestRetryAfter(json, 0, null);
    }

    private static final int MAX_DEPTH = 4;
    private static final int MAX_ARRAY_ITEMS = 32;

    private static @Nullable Duration longestRetryAfter(JsonNode node, int depth, @Nullable Duration best) {
        if (depth > MAX_DEPTH) {
            return best;
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                Duration unit = retryAfterUnit(e.getKey());
                if (unit != null) {
                    Duration d = duration(e.getValue(), unit);
                    if (d != null && (best == null || d.compareTo(best) > 0)) {
                        best = d;
                    }
                } else if (e.getValue().isContainerNode()) {
                    best = longestRetryAfter(e.getValue(), depth + 1, best);
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < Math.min(node.size(), MAX_ARRAY_ITEMS); i++) {
                best = longestRetryAfter(node.get(i), depth + 1, best);
            }
        }
        return best;
    }

    /** The unit of a retry-after-like member name, or {@code null} when the name is not one. */
    private static @Nullable Duration retryAfterUnit(String name) {
        if (name.length() < 10 || name.length() > 32) {
            return null;
        }
        String n = name.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        return switch (n) {
            case "retryafter", "retryafters", "retryaftersec", "retryaftersecs", "retryafterseconds" -> SECOND;
            case "retryafterms", "retryaftermillis", "retryaftermilliseconds" -> MILLI;
            default -> null;
        };
    }

    private static @Nullable Duration duration(JsonNode v, Duration unit) {
        String text = v.isNumber() ? plainNumber(v) : v.isTextual() ? v.textValue().strip() : null;
        if (text == null) {
            return null;
        }
        Duration d = WireNumbers.parseDecimal(text, unit, MILLI);
        if (d == null && v.isTextual()) {
            Duration go = GoDuration.parse(text);
            d = go == null ? null : WireNumbers.roundUp(go, MILLI);
        }
        return d;
    }
}
