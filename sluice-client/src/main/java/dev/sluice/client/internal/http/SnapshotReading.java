package dev.sluice.client.internal.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.client.core.Answer;
import dev.sluice.client.spi.ResponseReader;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Locale;

/**
 * Turns a JDK response into the core's {@link Answer.Response}: the dialect registry reads the
 * status, fields and error body into a {@link RateLimitSnapshot}; the RFC 9457 problem {@code type}
 * is taken from a {@code application/problem+json} body for the codes the snapshot does not carry
 * ({@code idempotency_conflict}, {@code cost_exceeds_burst}).
 */
final class SnapshotReading {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ResponseReader reader;

    SnapshotReading(ResponseReader reader) {
        this.reader = reader;
    }

    Answer.Response read(HttpResponse<? extends Payload<?>> response, Instant localNow) {
        String body = response.body() instanceof Payload.ErrorText<?> e ? e.text() : null;
        ResponseView view = new ResponseView(response.statusCode(), HttpFields.ofMultimap(response.headers().map()), body);
        RateLimitSnapshot snapshot = reader.read(view, localNow);
        return new Answer.Response(snapshot, problemType(view));
    }

    static String problemType(ResponseView view) {
        if (view.body() == null) {
            return null;
        }
        String ct = view.headers().first("Content-Type").orElse("").toLowerCase(Locale.ROOT);
        if (!ct.startsWith("application/problem+json")) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(view.body());
            JsonNode type = node == null ? null : node.get("type");
            return type != null && type.isTextual() ? type.asText() : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null; // a broken body is simply not a problem document
        }
    }
}
