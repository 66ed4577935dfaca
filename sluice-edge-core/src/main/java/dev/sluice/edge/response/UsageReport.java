package dev.sluice.edge.response;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code GET /v1/usage} (SPEC §3.6), answered by the edge from limiter state without
 * charging anything:
 *
 * <pre>{@code
 * {"plan":"free","limits":[{"name":"burst","q":20,"w":2,"r":7},
 *   {"name":"daily","q":10000,"w":86400,"r":2310,"reset_at":"2026-12-01T00:00:00Z"}]}
 * }</pre>
 *
 * <p>{@code reset_at} (RFC 3339, UTC, whole seconds) is given for quota policies only: a burst
 * policy refills continuously. Stateless and thread-safe.
 */
public final class UsageReport {

    private static final JsonFactory JSON = new JsonFactory();
    private static final Header CONTENT_TYPE = new Header("Content-Type", "application/json");
    private static final Header NO_STORE = new Header("Cache-Control", "no-store");

    private UsageReport() {
    }

    /** The JSON body for {@code plan} with {@code states} (plan order). */
    public static byte[] json(Plan plan, List<PolicyState> states) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 96 * states.size());
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("plan", plan.name());
            g.writeArrayFieldStart("limits");
            for (PolicyState s : states) {
                g.writeStartObject();
                g.writeStringField("name", s.policy().name());
                g.writeNumberField("q", s.policy().quota());
                if (s.policy().windowSeconds() > 0) { // a concurrency policy has no window
                    g.writeNumberField("w", s.policy().windowSeconds());
                } else {
                    g.writeStringField("qu", s.policy().unit().wireName());
                }
                g.writeNumberField("r", s.remaining());
                if (s.resetAt().isPresent()) {
                    g.writeStringField("reset_at", DateTimeFormatter.ISO_INSTANT.format(s.resetAt().get()));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    /**
     * The whole 200 response: JSON body, {@code Cache-Control: no-store}, and the key's
     * {@code RateLimit-Policy} / {@code RateLimit} (SPEC §2.2: every response to a key carries them).
     */
    public static EdgeResponse response(Plan plan, List<PolicyState> states, int softLimitPercent) {
        List<Header> headers = new ArrayList<>(5);
        headers.add(CONTENT_TYPE);
        headers.add(NO_STORE);
        headers.addAll(LimitFields.headers(plan, states, softLimitPercent));
        return new EdgeResponse(200, headers, json(plan, states));
    }
}
