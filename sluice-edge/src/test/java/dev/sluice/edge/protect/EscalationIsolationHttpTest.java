package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.escalation.EscalationConfig;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.12 over loopback in real time: a client in a tight retry loop (one keep-alive connection,
 * the next request as soon as its 429 arrives, Retry-After ignored) is escalated and blocked, and a
 * well-behaved key sharing the edge is unaffected: every one of its requests is admitted, and its median
 * latency stays within the noise of the machine.
 *
 * <p><b>The latency margin.</b> The well-behaved key's p50 is measured alone, beside the blocked loop, and
 * alone again (300 sequential requests each, on one keep-alive connection, after a warm-up). On the 2 shared
 * cores this runs on (load 4–6 from other builds, paranoid leak detection on), two phases alone differed by
 * up to 1.45× (0.78 vs 1.13 ms), and the loop's own thread takes one core, so a polite request may wait for a
 * core: beside it the p50 went from 0.73 to 1.70 ms in three runs, at most 2× the larger phase alone. The
 * bound is 3× the larger p50 alone plus 1 ms. It is coarse on purpose: the failures it is there for are not
 * subtle — a key caught by another key's escalation gets 429s (the status check fails at once) or waits a
 * Retry-After of at least a second, and a shared lock or a log flood under the loop shows as many
 * milliseconds, far past the bound.
 */
@Tag("slow")
@Timeout(120)
@ExtendWith(NoLeaks.class)
class EscalationIsolationHttpTest {

    private static final int SAMPLES = 300;

    @Test
    void aWellBehavedKeyKeepsItsRateAndLatencyWhileAnotherKeyLoopsAndIsBlocked() throws Exception {
        EdgeConfig config = EdgeConfig.parse("isolation.yaml", """
                admin: off
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 1 }
                  roomy:
                    policies:
                      - { name: burst, kind: burst, q: 1000000, w: 1 }
                keys:
                  sk_loop: free
                  sk_polite: roomy
                routes:
                  - { method: GET, path: /v1/quotes }
                """);
        try (TestUpstream upstream = new TestUpstream();
             EdgeServer edge = EdgeServer.start(config.withListenPort(0).withUpstreamUrl(upstream.url()),
                     EdgeOptions.defaults().withTime(TimeSource.system()));
             RawHttp polite = new RawHttp(edge.port())) {
            String politeRequest = "GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_polite\r\n\r\n";
            measure(polite, politeRequest, SAMPLES); // warm-up: the JIT, the pools, the upstream connection
            long[] alone = measure(polite, politeRequest, SAMPLES);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong loopRequests = new AtomicLong();
            Thread loop = Thread.ofPlatform().name("tight-loop").start(() -> {
                try (RawHttp abuser = new RawHttp(edge.port())) {
                    String req = "GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_loop\r\n\r\n";
                    while (!stop.get()) {
                        abuser.send(req).read();
                        loopRequests.incrementAndGet();
                    }
                }
            });
            long[] during;
            try {
                await("the tight loop is blocked").atMost(Duration.ofSeconds(20))
                        .until(() -> edge.escalation().level("sk_loop") > EscalationConfig.defaults().maxDoublings());
                during = measure(polite, politeRequest, SAMPLES);
            } finally {
                stop.set(true);
                loop.join(10_000);
            }
            long[] after = measure(polite, politeRequest, SAMPLES);

            double p50Alone = p50(alone);
            double p50During = p50(during);
            double p50After = p50(after);
            System.out.printf("escalation isolation: polite p50 %.0f µs alone, %.0f µs beside a blocked tight loop"
                    + " (%d requests), %.0f µs after%n", p50Alone, p50During, loopRequests.get(), p50After);

            // the loop was escalated; the polite key never was, and every request of it was admitted
            assertThat(edge.escalation().level("sk_polite")).isZero();
            assertThat(upstream.seen().stream().filter(s -> s.header("Authorization").endsWith("sk_polite")).count())
                    .isEqualTo(4L * SAMPLES);
            // its median latency is within the noise (the margin is justified in the class comment)
            double baseline = Math.max(p50Alone, p50After);
            assertThat(p50During).isLessThanOrEqualTo(baseline * 3 + 1_000);
        }
    }

    /** {@code n} sequential requests on one keep-alive connection; each one's round trip in microseconds. */
    private static long[] measure(RawHttp client, String request, int n) {
        long[] micros = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            RawHttp.Response r = client.send(request).read();
            micros[i] = (System.nanoTime() - t0) / 1_000;
            assertThat(r.status()).as("a polite request").isEqualTo(200);
        }
        return micros;
    }

    private static double p50(long[] micros) {
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
