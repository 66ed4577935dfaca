package dev.sluice.client.internal.http;

import dev.sluice.client.core.Answer;
import dev.sluice.client.spi.ResponseReader;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.net.http.HttpResponse;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Turns a JDK response into the core's {@link Answer.Response}: the dialect registry reads the
 * status, fields and error body into a {@link RateLimitSnapshot}; the RFC 9457 problem {@code type}
 * is taken from an {@code application/problem+json} body for the codes the snapshot does not carry
 * ({@code idempotency_conflict}, {@code cost_exceeds_burst}).
 */
final class SnapshotReading {

    private final ResponseReader reader;

    SnapshotReading(ResponseReader reader) {
        this.reader = reader;
    }

    Answer.Response read(HttpResponse<? extends Payload<?>> response, Instant localNow) {
        // an empty body is an absent one (ResponseView: null when absent)
        String body = response.body() instanceof Payload.ErrorText<?> e && !e.text().isEmpty() ? e.text() : null;
        ResponseView view = new ResponseView(response.statusCode(), HttpFields.ofMultimap(response.headers().map()), body);
        RateLimitSnapshot snapshot = reader.read(view, localNow);
        return new Answer.Response(snapshot, problemType(view));
    }

    /** The problem {@code type} of an {@code application/problem+json} body, else {@code null}. */
    static @Nullable String problemType(ResponseView view) {
        if (view.body() == null || !ProblemDetails.isProblemMediaType(view.headers().first("Content-Type").orElse(null))) {
            return null;
        }
        return ProblemDetails.parse(view.body()).map(ProblemDetails::type).orElse(null);
    }
}
