package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTestSupport;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client on the shared bucket while Redis is paused ({@code CLIENT PAUSE 1500 ALL} from a second
 * connection): its calls keep flowing under the local share ({@code rate/N}, N = 3), and it returns to
 * Redis by itself when the pause ends (SPEC §4.8, §3.14). One worker calls the provider in a loop and
 * records, after each call, whether the bucket's last answer came from Redis and whether the endpoint
 * considers Redis up; the timeline is printed.
 */
@Tag("slow")
@Timeout(120)
@ExtendWith(RedisTestSupport.class)
class RedisPauseFallbackTest {

    private static final long MS = 1_000_000L;
    private static final int PAUSE_MS = 1_500;
    private static final int PROCESSES = 3;

    record Call(long startNanos, long endNanos, boolean ok, boolean onRedis, boolean endpointUp) {}

    @Test
    void callsKeepFlowingAtTheLocalShareWhileRedisIsPausedAndReturnToRedisAfter() throws Exception {
        String prefix = RedisTestSupport.newPrefix("sdk-pause");
        try (ProviderStub provider = new ProviderStub(50, 1);
                RedisEndpoint endpoint = RedisEndpoint.connect(RedisTestSupport.URI);
                StatefulRedisConnection<String, String> second = RedisTestSupport.newConnection()) {
            RedisTestSupport.awaitUp(endpoint);
            RedisClientLimits limits = RedisClientLimits.over(endpoint, "provider-" + UUID.randomUUID(),
                    SharedLimitsConfig.builder().keyPrefix(prefix).processCount(PROCESSES).build());
            RedisTokenBucketStore bucket = limits.tokenBucket();
            List<Call> calls = new ArrayList<>();
            long pausedAt = 0;
            try (SluiceHttpClient client = SluiceHttpClient.builder()
                    .httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
                    .pacer(PacerConfig.documented(50, 50))
                    .tokenBucketStore(bucket).retryBudgetStore(limits.retryBudget())
                    .build()) {
                HttpRequest request = HttpRequest.newBuilder(provider.uri("/limited")).GET().build();
                long started = System.nanoTime();
                for (;;) {
                    long t = System.nanoTime();
                    boolean ok;
                    try {
                        client.send(request, HttpResponse.BodyHandlers.discarding(),
                                CallOptions.defaults().withDeadline(Duration.ofSeconds(5)));
                        ok = true;
                    } catch (SluiceException e) {
                        ok = false;
                    }
                    long end = System.nanoTime();
                    calls.add(new Call(t, end, ok, bucket.onRedis(), endpoint.isUp()));
                    if (pausedAt == 0 && calls.size() == 60) { // past the burst of 50, pacing at 45/s
                        second.sync().clientPause(PAUSE_MS); // CLIENT PAUSE 1500 (ALL): every client waits
                        pausedAt = System.nanoTime();
                    }
                    if (pausedAt != 0 && end - pausedAt > (PAUSE_MS + 1_500) * MS) {
                        break;
                    }
                    assertThat(end - started).as("the run ends within 20 s").isLessThan(20_000 * MS);
                }
            } finally {
                RedisTestSupport.deletePrefix(prefix);
            }

            long p = pausedAt;
            Call firstLocal = calls.stream().filter(c -> c.endNanos() > p && !c.onRedis()).findFirst().orElseThrow();
            Call firstDown = calls.stream().filter(c -> c.endNanos() > p && !c.endpointUp()).findFirst().orElseThrow();
            Call upAgain = calls.stream().filter(c -> c.endNanos() > firstDown.endNanos() && c.endpointUp())
                    .findFirst().orElseThrow();
            Call backOnRedis = calls.stream().filter(c -> c.endNanos() > firstDown.endNanos() && c.onRedis())
                    .findFirst().orElseThrow();
            long okDuringPause = calls.stream()
                    .filter(c -> c.ok() && c.endNanos() > p && c.endNanos() < p + PAUSE_MS * MS).count();
            // the calls that met the pause (the first calls of the run also pay for class loading and the
            // first connection, which on a loaded machine took 3 s once and says nothing about the pause)
            long slowest = calls.stream().filter(c -> c.endNanos() > p && c.startNanos() < p + PAUSE_MS * MS)
                    .mapToLong(c -> c.endNanos() - c.startNanos()).max().orElseThrow();
            long localFrom = firstLocal.startNanos();
            long localTo = backOnRedis.startNanos();
            long arrivedWhileLocal = provider.arrivals().stream()
                    .filter(a -> a.nanos() >= localFrom && a.nanos() < localTo).count();
            double localSeconds = (localTo - localFrom) / 1e9;
            SharedLimitsStats stats = bucket.stats();

            System.out.printf("%nshared bucket under CLIENT PAUSE %d ALL (N = %d, shared pace 45/s, local share 15/s):%n",
                    PAUSE_MS, PROCESSES);
            System.out.printf("  0 ms: CLIENT PAUSE %d ALL%n", PAUSE_MS);
            System.out.printf("  %d ms: first call paced locally (that call took %d ms)%n", ms(firstLocal.endNanos() - p),
                    ms(firstLocal.endNanos() - firstLocal.startNanos()));
            System.out.printf("  %d ms: redis marked down (seen after a call)%n", ms(firstDown.endNanos() - p));
            System.out.printf("  %d ms: redis up again (probe)%n", ms(upAgain.endNanos() - p));
            System.out.printf("  %d ms: first call paced by redis again%n", ms(backOnRedis.endNanos() - p));
            System.out.printf("  %d calls answered during the pause; %d requests reached the provider in the %.2f s"
                    + " paced locally (%.1f/s); slowest call during the pause %d ms; bucket: %d local answers, %d timeouts,"
                    + " %d fallback period(s)%n%n", okDuringPause, arrivedWhileLocal, localSeconds,
                    arrivedWhileLocal / localSeconds, ms(slowest), stats.localAnswers(), stats.timeouts(),
                    stats.fallbackPeriods());

            assertThat(okDuringPause).as("calls keep flowing while redis is paused").isGreaterThanOrEqualTo(5);
            // at most the local share: its burst (50/3) and its rate (45/3 per second), + 2 for the
            // calls already granted by redis and in flight when the pause began
            assertThat((double) arrivedWhileLocal).isLessThanOrEqualTo(50.0 / PROCESSES + 45.0 / PROCESSES * localSeconds + 2);
            assertThat(stats.localAnswers()).isPositive();
            assertThat(stats.fallbackPeriods()).isGreaterThanOrEqualTo(1);
            assertThat(calls.get(calls.size() - 1).onRedis()).as("back on redis by itself").isTrue();
            assertThat(slowest).as("no call waited out the pause").isLessThan(PAUSE_MS * MS);
        }
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000L;
    }
}
