package dev.sluice.client.transport;

import dev.sluice.client.core.Answer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Maps a failed exchange of a blocking-socket transport (OkHttp, Apache HttpClient 5, Spring's
 * request factories) to how far the request got (SPEC §4.2, R07a): nothing can have been sent
 * when the connection was never made; a timeout or a broken connection after that leaves the
 * outcome unknown, so only a safe request is retried.
 */
public final class TransportFailures {

    private TransportFailures() {
    }

    /** The cause under {@code CompletionException} / {@code ExecutionException} wrappers. */
    public static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /**
     * {@code NOT_SENT} for a refused, unresolvable or unroutable connection; {@code TIMEOUT} for an
     * {@link InterruptedIOException} (socket and call timeouts); {@code CONNECTION_LOST} for any
     * other {@link IOException}; {@code null} for anything else (not an I/O failure).
     */
    public static Answer.@Nullable Failure of(Throwable error) {
        Throwable c = unwrap(error);
        if (c instanceof ConnectException || c instanceof UnknownHostException
                || c instanceof NoRouteToHostException || c instanceof UnresolvedAddressException) {
            return new Answer.Failure(Answer.FailureKind.NOT_SENT, c);
        }
        if (c instanceof InterruptedIOException) {
            return new Answer.Failure(Answer.FailureKind.TIMEOUT, c);
        }
        if (c instanceof IOException) {
            return new Answer.Failure(Answer.FailureKind.CONNECTION_LOST, c);
        }
        return null;
    }
}
