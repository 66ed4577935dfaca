package dev.sluice.client.transport;

import dev.sluice.client.core.Answer;
import dev.sluice.client.spi.ResponseReader;
import dev.sluice.wire.dialect.DialectRegistry;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.problem.ProblemDetails;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Reads any transport's response into the core's {@link Answer.Response}: the dialect registry
 * turns status, fields and error body into a {@code RateLimitSnapshot}; the RFC 9457 problem
 * {@code type} of an {@code application/problem+json} body names the codes a snapshot does not
 * carry ({@code idempotency_conflict}, {@code cost_exceeds_burst}).
 */
public final class ResponseAnswers {

    /** Error bodies read for classification are cut at this many bytes (problem bodies are small). */
    public static final int MAX_ERROR_BODY_BYTES = 64 * 1024;

    private final ResponseReader reader;

    private ResponseAnswers(ResponseReader reader) {
        this.reader = reader;
    }

    /** Reads with {@link DialectRegistry#standard()}. */
    public static ResponseAnswers standard() {
        return new ResponseAnswers(DialectRegistry.standard()::read);
    }

    /** Reads with {@code reader} (a registry with the user's own dialects). */
    public static ResponseAnswers with(ResponseReader reader) {
        return new ResponseAnswers(java.util.Objects.requireNonNull(reader, "reader"));
    }

    /** Whether a response with {@code status} needs its body read to be classified (4xx and 5xx). */
    public static boolean readsBody(int status) {
        return status >= 400;
    }

    /**
     * @param status the HTTP status
     * @param fields the response's header fields
     * @param errorBody the body of an error response as text ({@code null} or empty when absent or
     *     not read)
     * @param localNow the local wall clock, used only when the response has no {@code Date}
     */
    public Answer.Response read(int status, HttpFields fields, @Nullable String errorBody, Instant localNow) {
        String body = errorBody == null || errorBody.isEmpty() ? null : errorBody;
        ResponseView view = new ResponseView(status, fields, body);
        return new Answer.Response(reader.read(view, localNow), problemType(view));
    }

    private static @Nullable String problemType(ResponseView view) {
        if (view.body() == null || !ProblemDetails.isProblemMediaType(view.headers().first("Content-Type").orElse(null))) {
            return null;
        }
        return ProblemDetails.parse(view.body()).map(ProblemDetails::type).orElse(null);
    }
}
