package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

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
        "credits exhausted", "billing hard limit",
    };

    private Signals() {
    }

    /** True when {@code text} says, in words servers use, that a rate limit was hit. */
    static boolean saysRateLimited(String text) {
        return containsAny(text, LIMIT_PHRASES);
    }

    /** True when {@code text} says a daily/monthly quota or credit is spent. */
    static boolean saysQuotaSpent(String text) {
        return containsAny(text, QUOTA_PHRASES);
    }

    private static boolean containsAny(String text, String[] phrases) {
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
    static JsonNode at(JsonNode node, String... path) {
        JsonNode n = node;
        for (String p : path) {
            if (n == null || !n.isObject()) {
                return null;
            }
            n = n.get(p);
        }
        return n;
    }

    /** The text at {@code path}, or {@code null} when absent or not a string. */
    static String text(JsonNode node, String... path) {
        JsonNode n = at(node, path);
        return n != null && n.isTextual() ? n.textValue() : null;
    }

    /** The value at {@code path} as text when it is a string or a number, else {@code null}. */
    static String scalar(JsonNode node, String... path) {
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
    static String plainNumber(JsonNode n) {
        if (n == null || !n.isNumber()) {
            return null;
        }
        if (n.isFloatingPointNumber() && !n.isBigDecimal() && !Double.isFinite(n.doubleValue())) {
            return n.doubleValue() > 0 ? "99999999999999999999" : null;
        }
        return n.decimalValue().stripTrailingZeros().toPlainString();
    }
}
