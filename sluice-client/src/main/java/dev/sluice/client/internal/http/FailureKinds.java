package dev.sluice.client.internal.http;

import dev.sluice.client.core.Answer;
import dev.sluice.client.transport.TransportFailures;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import org.jspecify.annotations.Nullable;

/**
 * Maps a failed JDK exchange to how far the request got (SPEC §4.2, R07a): nothing can have been
 * sent when the connection was never made; after that, a timeout or a broken connection leaves the
 * outcome unknown.
 *
 * <p>It also says when the JDK may have sent the request twice underneath: JDK 21–25's
 * {@code MultiExchange} re-sends a GET or HEAD once when its HTTP/1.1 connection closes (EOF or
 * reset) before any byte of the response ({@code ConnectionExpiredException}, {@code retriedOnce}),
 * on new and pooled connections alike, and no property turns that off; with
 * {@code -Djdk.httpclient.enableAllMethodRetry} it does so for every method. The failure the
 * caller then sees is the second one, an ordinary {@code IOException}, indistinguishable from a
 * failure after some response bytes (not re-sent), so every lost connection of such a request
 * counts as possibly sent twice: over-counting by one beats under-counting by half. With
 * {@code -Djdk.httpclient.redirects.retrylimit=1} the JDK makes one exchange per request at most
 * (the re-send fails with "Too many retries"; redirects and authentication retries too), and
 * nothing is counted twice.
 */
final class FailureKinds {

    /** Read once, as the JDK reads them when {@code MultiExchange} loads. */
    private static final @Nullable String ALL_METHODS = System.getProperty("jdk.httpclient.enableAllMethodRetry");
    private static final @Nullable String RETRY_LIMIT = System.getProperty("jdk.httpclient.redirects.retrylimit");

    private FailureKinds() {
    }

    /** Whether the JDK re-sends a request of {@code method} whose connection closes before the response. */
    static boolean jdkMayResend(String method) {
        return jdkMayResend(method, ALL_METHODS, RETRY_LIMIT);
    }

    /**
     * The JDK's rule ({@code MultiExchange.canRetryRequest}, {@code max_attempts}) for the given
     * values of {@code jdk.httpclient.enableAllMethodRetry} and
     * {@code jdk.httpclient.redirects.retrylimit} ({@code null} when unset; limit 5 by default).
     */
    static boolean jdkMayResend(String method, @Nullable String allMethodsProperty,
            @Nullable String retryLimitProperty) {
        int limit = 5;
        if (retryLimitProperty != null) {
            try {
                limit = Integer.parseInt(retryLimitProperty.strip());
            } catch (NumberFormatException e) {
                limit = 5; // the JDK falls back to its default too
            }
        }
        if (limit <= 1) {
            return false;
        }
        boolean allMethods = allMethodsProperty != null
                && (allMethodsProperty.isEmpty() || Boolean.parseBoolean(allMethodsProperty));
        return allMethods || "GET".equals(method) || "HEAD".equals(method);
    }

    /**
     * The failure for an I/O problem of a request with {@code method}, or {@code null} when {@code t}
     * is not one (then it propagates).
     */
    static Answer.@Nullable Failure of(Throwable t, String method) {
        Throwable c = TransportFailures.unwrap(t);
        if (c instanceof HttpConnectTimeoutException || c instanceof ConnectException
                || c instanceof UnknownHostException || c instanceof NoRouteToHostException
                || c instanceof UnresolvedAddressException) {
            return new Answer.Failure(Answer.FailureKind.NOT_SENT, c);
        }
        if (c instanceof HttpTimeoutException) {
            return new Answer.Failure(Answer.FailureKind.TIMEOUT, c);
        }
        if (c instanceof IOException) {
            return new Answer.Failure(Answer.FailureKind.CONNECTION_LOST, c, jdkMayResend(method) ? 1 : 0);
        }
        return null;
    }
}
