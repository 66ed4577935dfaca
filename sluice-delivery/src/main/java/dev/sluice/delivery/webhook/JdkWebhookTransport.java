package dev.sluice.delivery.webhook;

import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.delivery.spi.WebhookTransport;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.http.HttpFields;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Objects;

/**
 * The default transport: the JDK {@link HttpClient}, HTTP/1.1 with keep-alive, redirects not
 * followed (Standard Webhooks: a 3xx is a failure), the response body discarded.
 *
 * <p>Failure classes: a refused or timed-out connection never carried the request
 * ({@link ResponseClass#CONNECTION_FAILED}, always safe to retry); a request timeout or any other
 * I/O error after connecting may have been received ({@link ResponseClass#TIMEOUT},
 * {@link ResponseClass#CONNECTION_RESET}). The JDK client does not retry a POST by itself.
 *
 * <p>Thread-safe.
 */
public final class JdkWebhookTransport implements WebhookTransport {

    private final HttpClient client;
    private final TimeSource time;

    /**
     * @param connectTimeout the TCP connect deadline
     * @param time the clock for measuring latency
     */
    public JdkWebhookTransport(Duration connectTimeout, TimeSource time) {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .build();
        this.time = Objects.requireNonNull(time, "time");
    }

    @Override
    public TransportResult send(WebhookRequest request, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(request.url())
                .timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofString(request.body()));
        for (String name : request.headers().names()) {
            for (String value : request.headers().all(name)) {
                b.header(name, value);
            }
        }
        long start = time.nanoTime();
        try {
            HttpResponse<Void> response = client.send(b.build(), HttpResponse.BodyHandlers.discarding());
            return new TransportResult.Answered(response.statusCode(),
                    HttpFields.ofMultimap(response.headers().map()), since(start));
        } catch (HttpConnectTimeoutException e) {
            return new TransportResult.Failed(ResponseClass.CONNECTION_FAILED, "connect timeout", since(start));
        } catch (HttpTimeoutException e) {
            return new TransportResult.Failed(ResponseClass.TIMEOUT,
                    "no answer within " + timeout.toMillis() + " ms", since(start));
        } catch (ConnectException e) {
            return new TransportResult.Failed(ResponseClass.CONNECTION_FAILED,
                    "connect failed: " + describe(e), since(start));
        } catch (IOException e) {
            return new TransportResult.Failed(ResponseClass.CONNECTION_RESET, describe(e), since(start));
        } catch (UnresolvedAddressException e) {
            return new TransportResult.Failed(ResponseClass.CONNECTION_FAILED, "unresolved host", since(start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the request may be on the wire: as ambiguous as a timeout
            return new TransportResult.Failed(ResponseClass.TIMEOUT, "interrupted while waiting", since(start));
        }
    }

    private Duration since(long startNanos) {
        return Duration.ofNanos(time.nanoTime() - startNanos);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
    }

    @Override
    public void close() {
        client.close();
    }
}
