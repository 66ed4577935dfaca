package dev.sluice.client.internal.http;

import dev.sluice.client.core.Answer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Maps a failed JDK exchange to how far the request got (SPEC §4.2, R07a): nothing can have been
 * sent when the connection was never made; after that, a timeout or a broken connection leaves the
 * outcome unknown.
 */
final class FailureKinds {

    private FailureKinds() {
    }

    /** The cause under {@code CompletionException} / {@code ExecutionException} wrappers. */
    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** The failure for an I/O problem, or {@code null} when {@code t} is not one (then it propagates). */
    static Answer.Failure of(Throwable t) {
        Throwable c = unwrap(t);
        if (c instanceof HttpConnectTimeoutException || c instanceof ConnectException
                || c instanceof UnknownHostException || c instanceof NoRouteToHostException
                || c instanceof UnresolvedAddressException) {
            return new Answer.Failure(Answer.FailureKind.NOT_SENT, c);
        }
        if (c instanceof HttpTimeoutException) {
            return new Answer.Failure(Answer.FailureKind.TIMEOUT, c);
        }
        if (c instanceof IOException) {
            return new Answer.Failure(Answer.FailureKind.CONNECTION_LOST, c);
        }
        return null;
    }
}
