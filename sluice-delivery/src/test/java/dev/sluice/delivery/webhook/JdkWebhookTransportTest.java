package dev.sluice.delivery.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.delivery.support.TestReceiver;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.http.HttpFields;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The JDK transport against real sockets on 127.0.0.1: each outcome lands in its SPEC §6.3 class. */
class JdkWebhookTransportTest {

    final JdkWebhookTransport transport = new JdkWebhookTransport(Duration.ofSeconds(2), TimeSource.system());

    static WebhookRequest post(URI url) {
        return new WebhookRequest(url, HttpFields.of("Content-Type", "application/json", "Idempotency-Key", "k1",
                "webhook-id", "k1"), "{}");
    }

    @Test
    void anAnswerKeepsItsStatusAndRetryAfter() throws IOException {
        try (TestReceiver r = new TestReceiver((k, n) -> new TestReceiver.Respond(429, 7))) {
            TransportResult result = transport.send(post(r.url("/hooks")), Duration.ofSeconds(2));

            assertThat(result).isInstanceOfSatisfying(TransportResult.Answered.class, a -> {
                assertThat(a.status()).isEqualTo(429);
                assertThat(a.headers().first("Retry-After")).contains("7");
            });
            assertThat(r.arrivals("k1")).hasSize(1);
        }
    }

    @Test
    void noAnswerWithinTheTimeoutIsAnAmbiguousTimeout() throws IOException {
        // 1 s, not less: on a loaded machine a shorter timeout can fire while still connecting, which is
        // CONNECTION_FAILED (never sent), not the ambiguous TIMEOUT this case is about
        try (TestReceiver r = new TestReceiver((k, n) -> new TestReceiver.Hang(Duration.ofSeconds(3)))) {
            TransportResult result = transport.send(post(r.url("/hooks")), Duration.ofSeconds(1));

            assertThat(result).isInstanceOfSatisfying(TransportResult.Failed.class,
                    f -> assertThat(f.responseClass()).isEqualTo(ResponseClass.TIMEOUT));
        }
    }

    @Test
    void aRefusedConnectionWasNeverSent() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        TransportResult result = transport.send(post(URI.create("http://127.0.0.1:" + closedPort + "/")),
                Duration.ofSeconds(1));

        assertThat(result).isInstanceOfSatisfying(TransportResult.Failed.class,
                f -> assertThat(f.responseClass()).isEqualTo(ResponseClass.CONNECTION_FAILED));
    }

    @Test
    void aConnectionClosedAfterTheRequestIsAnAmbiguousReset() throws Exception {
        ExecutorService acceptor = Executors.newSingleThreadExecutor();
        try (ServerSocket server = new ServerSocket(0)) {
            acceptor.submit(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    in.read(new byte[8192]); // take the request, then hang up without a status line
                }
                return null;
            });
            TransportResult result = transport.send(post(URI.create("http://127.0.0.1:" + server.getLocalPort()
                    + "/")), Duration.ofSeconds(2));

            assertThat(result).isInstanceOfSatisfying(TransportResult.Failed.class,
                    f -> assertThat(f.responseClass()).isEqualTo(ResponseClass.CONNECTION_RESET));
        } finally {
            acceptor.shutdownNow();
        }
    }
}
