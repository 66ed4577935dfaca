package dev.sluice.examples.demo.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.examples.demo.series.Series;
import java.io.IOException;

/**
 * Sorts one HTTP answer into the demo's outcome {@link Series}. A 429 is told apart by the
 * RFC 9457 problem body the edge writes (SPEC §3.4): a {@code type} ending in
 * {@code quota_exhausted} is a spent quota, any other 429 is a burst limit.
 */
final class AttemptOutcomes {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AttemptOutcomes() {
    }

    /** The outcome of {@code status}; a 429 without a readable body counts as rate limited. */
    static Series of(int status, byte[] body) {
        if (status >= 200 && status < 300) {
            return Series.ADMITTED;
        }
        if (status == 429) {
            return isQuotaExhausted(body) ? Series.QUOTA_EXHAUSTED : Series.RATE_LIMITED;
        }
        if (status == 503) {
            return Series.UNAVAILABLE;
        }
        return Series.OTHER;
    }

    /** Whether {@code body} is a problem document of type {@code .../quota_exhausted}. */
    static boolean isQuotaExhausted(byte[] body) {
        if (body == null || body.length == 0) {
            return false;
        }
        try {
            JsonNode type = JSON.readTree(body).path("type");
            return type.isTextual() && type.asText().endsWith("quota_exhausted");
        } catch (IOException | RuntimeException e) {
            return false; // not a problem document: nothing says "quota"
        }
    }

    /** The {@code Retry-After} delay-seconds, or -1 when absent or not a non-negative integer. */
    static long retryAfterSeconds(String value) {
        if (value == null || value.isEmpty() || value.length() > 9) {
            return -1;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(value);
    }
}
