package dev.sluice.examples.demo.fleet;

import dev.sluice.client.CallOptions;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The demo's Sluice SDK client: each virtual client is an application instance with its own
 * {@link SluiceHttpClient} with the SDK's defaults (its own pacer, retry budget and adaptive
 * throttle, SPEC §4), a call deadline, and its pacer seeded from {@code GET /v1/usage} before the
 * run starts (SPEC §4.6), all sending through the client's counted JDK client and sharing one
 * scheduler thread. The clients of one API key are instances of one application sharing that key's
 * limit, so they share one retry budget ({@link RetryBudgetStore#inMemory}, SPEC §4.8: the in-process
 * stand-in for the Redis store several processes would share). How each call ended comes from its result or its typed exception; the wire tap
 * counts its attempts and retries like any other client's.
 */
public final class SdkTransport implements CallTransport {

    /** The deadline of one call, its retries and waits included. */
    static final Duration CALL_DEADLINE = Duration.ofSeconds(20);

    private final SluiceHttpClient client;
    private final CompletableFuture<Void> seeded;

    private SdkTransport(SluiceHttpClient client, CompletableFuture<Void> seeded) {
        this.client = client;
        this.seeded = seeded;
    }

    /**
     * A factory of SDK transports for clients of the edge at {@code edge}.
     *
     * @param time the SDK's clock
     */
    public static Factory factory(URI edge, TimeSource time) {
        Objects.requireNonNull(edge, "edge");
        Objects.requireNonNull(time, "time");
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fleet-sdk-scheduler");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        Scheduler scheduler = new SharedScheduler(executor);
        URI usage = URI.create(edge + "/v1/usage");
        Map<String, RetryBudgetStore> budgets = new ConcurrentHashMap<>();
        return new Factory() {
            @Override
            public CallTransport create(ClientSpec spec, HttpClient http, RandomGenerator random) {
                RetryBudgetStore budget = budgets.computeIfAbsent(spec.apiKey(),
                        k -> RetryBudgetStore.inMemory(RetryBudgetConfig.defaults()));
                SluiceHttpClient client = SluiceHttpClient.builder()
                        .httpClient(http)
                        .retryBudgetStore(budget)
                        .scheduler(scheduler)
                        .time(time)
                        .random(random)
                        .defaultDeadline(CALL_DEADLINE)
                        .build();
                HttpRequest seed = HttpRequest.newBuilder(usage).timeout(Duration.ofSeconds(5))
                        .header("Authorization", "Bearer " + spec.apiKey()).GET().build();
                // a failed seed leaves the pacer to the headers of the first answers
                CompletableFuture<Void> seeded = client.seedFromUsage(seed).exceptionally(e -> null);
                return new SdkTransport(client, seeded);
            }

            @Override
            public ClientKind kind() {
                return ClientKind.SDK;
            }

            @Override
            public void close() {
                executor.shutdownNow();
            }
        };
    }

    @Override
    public CompletableFuture<Void> ready() {
        return seeded;
    }

    @Override
    public CallResult call(HttpRequest request, Operation operation, RandomGenerator random)
            throws InterruptedException {
        CallOptions options = CallOptions.defaults().withCost(operation == Operation.BUY_BATCH ? 10 : 1);
        try {
            HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding(), options);
            return CallResult.of(CallResult.Kind.SUCCEEDED, response.statusCode(), 0);
        } catch (QuotaExceededException e) {
            return e.attempts() == 0 ? CallResult.of(CallResult.Kind.QUOTA_EXCEEDED_LOCALLY, e.status(), 0)
                    : CallResult.of(CallResult.Kind.QUOTA_EXCEEDED, e.status(), e.attempts());
        } catch (SluiceException e) {
            return CallResult.of(kind(e), e.status(), e.attempts());
        } catch (IOException | CancellationException e) {
            return CallResult.of(CallResult.Kind.FAILED, 0, 0);
        }
    }

    /**
     * How a call that ended in {@code e} is counted; a refusal without a request is told apart, and so
     * is a call whose retry the budget refused (the answer's own error, the refusal as its cause).
     */
    static CallResult.Kind kind(SluiceException e) {
        if (e.getCause() instanceof RetryBudgetExhaustedException) {
            return CallResult.Kind.BUDGET_EXHAUSTED;
        }
        return switch (e) {
            case RateLimitedException r -> r.attempts() == 0 ? CallResult.Kind.PACED_OUT : CallResult.Kind.RATE_LIMITED;
            case OverloadedException o -> CallResult.Kind.UNAVAILABLE;
            case RetryBudgetExhaustedException b -> CallResult.Kind.BUDGET_EXHAUSTED;
            case LocallyThrottledException d -> CallResult.Kind.LOCALLY_DROPPED;
            case ShedException s -> CallResult.Kind.SHED;
            default -> CallResult.Kind.FAILED;
        };
    }

    @Override
    public void close() {
        client.close();
    }

    /** One scheduler thread for every client of the fleet (the SDK's tasks are short). */
    private record SharedScheduler(ScheduledExecutorService executor) implements Scheduler {
        @Override
        public Cancellable schedule(Runnable task, Duration delay) {
            try {
                ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                return () -> { }; // the fleet is stopping
            }
        }
    }
}
