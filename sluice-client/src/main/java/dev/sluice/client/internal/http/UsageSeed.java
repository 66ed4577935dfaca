package dev.sluice.client.internal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads the usage endpoint's body (SPEC §3.6) into a snapshot the pacer can follow:
 * {@code {"plan": ..., "limits": [{"name", "q", "w", "r", "reset_at"}]}}. A limit with
 * {@code reset_at} (RFC 3339) resets at that instant, measured from the response's own time.
 */
final class UsageSeed {

    private static final ObjectMapper JSON = new ObjectMapper();

    private UsageSeed() {
    }

    /**
     * @param responseTime the response's {@code Date}, else the local clock
     * @throws IOException when the body is not a usage document
     */
    static RateLimitSnapshot parse(String body, Instant responseTime) throws IOException {
        JsonNode root = JSON.readTree(body);
        JsonNode limits = root == null ? null : root.get("limits");
        if (limits == null || !limits.isArray()) {
            throw new IOException("not a usage document: no \"limits\" array");
        }
        List<PolicySnapshot> policies = new ArrayList<>();
        for (JsonNode l : limits) {
            String name = text(l, "name");
            Long q = number(l, "q");
            Long w = number(l, "w");
            Long r = number(l, "r");
            Duration resetIn = null;
            String resetAt = text(l, "reset_at");
            if (resetAt != null) {
                try {
                    Duration d = Duration.between(responseTime, Instant.parse(resetAt));
                    resetIn = d.isNegative() ? Duration.ZERO : d;
                } catch (DateTimeParseException e) {
                    resetIn = null; // a bad instant is no reset, not a failure
                }
            }
            policies.add(new PolicySnapshot(name, q, w, r, resetIn, "requests", PolicyKind.infer(name, w)));
        }
        return new RateLimitSnapshot(200, Outcome.OK, "sluice-usage", null, false, policies, null, null, Map.of());
    }

    private static @Nullable String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    private static @Nullable Long number(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.canConvertToLong() && v.asLong() >= 0 ? v.asLong() : null;
    }
}
