package dev.sluice.examples.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.examples.ForwardingHttpClient;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ClientCore} promises a short, non-blocking section under its lock: a shared bucket and
 * budget (SPEC §4.8) that block on every call must not serialise the client's calls behind them.
 * A store that sleeps 50 ms on every method (a slow Redis round trip), 8 threads on one client
 * calling the real edge on loopback: the time each call spends in the SDK (its latency less the time
 * its requests spent in the JDK {@code HttpClient}, measured by a forwarding client) stays within
 * twice the store's delay at the 99th percentile; serialised behind the lock it would be up to
 * 8 × 50 ms. The wire time is taken out because on a shared 2-core machine a loopback round trip
 * through the edge and Shiplane alone varies by hundreds of milliseconds.
 */
@Tag("slow")
class SlowSharedStoresAgainstTheEdgeTest {

    private static final Duration STORE_DELAY = Duration.ofMillis(50);
    private static final int THREADS = 8;
    private static final int CALLS_PER_THREAD = 20;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eightThreadsOnAStoreThatBlocksFiftyMillisecondsAreNotSerialisedBehindIt() throws Exception {
        AtomicInteger storeCalls = new AtomicInteger();
        TokenBucketStore bucket = new SlowBucket(TokenBucketStore.inMemory(System.nanoTime()), storeCalls);
        RetryBudgetStore budget = new SlowBudget(RetryBudgetStore.inMemory(RetryBudgetConfig.defaults()), storeCalls);
        Map<String, Long> wireNanos = new ConcurrentHashMap<>();
        try (ShiplaneBehindTheEdge env = ShiplaneBehindTheEdge.start();
                SluiceHttpClient client = SluiceHttpClient.builder().httpClient(new WireTimer(HttpClient.newHttpClient(), wireNanos))
                        .tokenBucketStore(bucket).retryBudgetStore(budget).build()) {
            // warm-up: connections, JIT, the pacer learns the Pro plan (100/s, burst 200) from the headers
            for (int i = 0; i < 5; i++) {
                client.send(env.request("/v1/quotes", "sk_test_pro_1").GET().build(), HttpResponse.BodyHandlers.discarding());
            }
            List<Long> millis = Collections.synchronizedList(new ArrayList<>());
            List<Long> inSdkMillis = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            AtomicInteger failures = new AtomicInteger();
            for (int t = 0; t < THREADS; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < CALLS_PER_THREAD; i++) {
                        String id = Thread.currentThread().threadId() + "-" + i;
                        long start = System.nanoTime();
                        try {
                            int status = client.send(env.request("/v1/quotes", "sk_test_pro_1").header("X-Call", id).GET().build(),
                                    HttpResponse.BodyHandlers.discarding(),
                                    CallOptions.defaults().withDeadline(Duration.ofSeconds(10))).statusCode();
                            if (status != 200) {
                                failures.incrementAndGet();
                            }
                        } catch (Exception e) {
                            failures.incrementAndGet();
                        }
                        long total = System.nanoTime() - start;
                        millis.add(total / 1_000_000);
                        inSdkMillis.add((total - wireNanos.getOrDefault(id, 0L)) / 1_000_000);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            List<Long> total = sorted(millis);
            List<Long> inSdk = sorted(inSdkMillis);
            System.out.printf("lock test: %d calls on %d threads, store %d ms per call (%d store calls): in the SDK"
                    + " p50 %d ms, p99 %d ms, max %d ms; whole call p50 %d ms, p99 %d ms%n", inSdk.size(), THREADS,
                    STORE_DELAY.toMillis(), storeCalls.get(), p(inSdk, 0.5), p(inSdk, 0.99), inSdk.getLast(),
                    p(total, 0.5), p(total, 0.99));
            assertThat(failures.get()).isZero();
            assertThat(p(inSdk, 0.99)).as("p99 of a call's time in the SDK, ms").isLessThanOrEqualTo(2 * STORE_DELAY.toMillis());
        }
    }

    private static List<Long> sorted(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted;
    }

    private static long p(List<Long> sorted, double quantile) {
        return sorted.get((int) Math.ceil(sorted.size() * quantile) - 1);
    }

    /** Adds up, per {@code X-Call}, the time its requests spent inside the JDK client (sent to answered). */
    private static final class WireTimer extends ForwardingHttpClient {
        private final Map<String, Long> wireNanos;

        WireTimer(HttpClient delegate, Map<String, Long> wireNanos) {
            super(delegate);
            this.wireNanos = wireNanos;
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
                throws IOException, InterruptedException {
            long start = System.nanoTime(); // a blocking send: the SDK sends on the caller's thread
            String id = request.headers().firstValue("X-Call").orElse("");
            try {
                return delegate.send(request, handler);
            } finally {
                wireNanos.merge(id, System.nanoTime() - start, Long::sum);
            }
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
            return sendAsync(request, handler, null);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                HttpResponse.PushPromiseHandler<T> push) {
            long start = System.nanoTime();
            String id = request.headers().firstValue("X-Call").orElse("");
            return delegate.sendAsync(request, handler, push).whenComplete((r, e) ->
                    wireNanos.merge(id, System.nanoTime() - start, Long::sum));
        }
    }

    private static void pause() {
        try {
            Thread.sleep(STORE_DELAY); // real time: the store's round trip is the slowness under test
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A shared bucket as slow as a Redis round trip of 50 ms, on every method. */
    private record SlowBucket(TokenBucketStore store, AtomicInteger calls) implements TokenBucketStore {
        @Override
        public long tryAcquire(double cost, long nowNanos) {
            calls.incrementAndGet();
            pause();
            return store.tryAcquire(cost, nowNanos);
        }

        @Override
        public void configure(double perSecond, double capacity, long nowNanos) {
            calls.incrementAndGet();
            pause();
            store.configure(perSecond, capacity, nowNanos);
        }

        @Override
        public void clamp(double maxTokens, long nowNanos) {
            calls.incrementAndGet();
            pause();
            store.clamp(maxTokens, nowNanos);
        }

        @Override
        public void drainAndPause(long untilNanos, long nowNanos) {
            calls.incrementAndGet();
            pause();
            store.drainAndPause(untilNanos, nowNanos);
        }

        @Override
        public double available(long nowNanos) {
            calls.incrementAndGet();
            pause();
            return store.available(nowNanos);
        }

        @Override
        public double capacity() {
            calls.incrementAndGet();
            pause();
            return store.capacity();
        }
    }

    /** A shared retry budget as slow, on every method. */
    private record SlowBudget(RetryBudgetStore store, AtomicInteger calls) implements RetryBudgetStore {
        @Override
        public void recordRequest(long nowNanos) {
            calls.incrementAndGet();
            pause();
            store.recordRequest(nowNanos);
        }

        @Override
        public boolean tryAcquireRetry(long nowNanos) {
            calls.incrementAndGet();
            pause();
            return store.tryAcquireRetry(nowNanos);
        }
    }
}
