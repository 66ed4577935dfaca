package dev.sluice.examples.demo.fleet;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientListener;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The fleet's client with the Sluice SDK: each virtual client is an application instance with its
 * own {@link SluiceHttpClient} (its own pacer, retry budget and adaptive throttle, SPEC §4), all
 * sending through the shared, counted JDK client and sharing one scheduler thread. The SDK's
 * retries, local drops and budget exhaustions are counted into the series through a
 * {@link ClientListener}; how each call ended comes from its typed exception.
 */
public final class SdkTransport implements CallTransport {

    /** The deadline of one call, its retries and waits included. */
    static final Duration CALL_DEADLINE = Duration.ofSeconds(20);

    private final SluiceHttpClient client;
    private final SeriesRecorder recorder;
    private final URI usage;
    private final String apiKey;
    private boolean seeded;

    private SdkTransport(SluiceHttpClient client, SeriesRecorder recorder, URI usage, String apiKey) {
        this.client = client;
        this.recorder = recorder;
        this.usage = usage;
        this.apiKey = apiKey;
    }

    /**
     * A factory of SDK transports for clients of the edge at {@code edge}.
     *
     * @param recorder where the SDK's retries, local drops and budget exhaustions are counted
     * @param time the SDK's clock
     */
    public static Factory factory(URI edge, SeriesRecorder recorder, TimeSource time) {
        Objects.requireNonNull(edge, "edge");
        Objects.requireNonNull(recorder, "recorder");
        Objects.requireNonNull(time, "time");
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fleet-sdk-scheduler");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        Scheduler scheduler = new SharedScheduler(executor);
        ClientListener listener = new ClientListener() {
            @Override
            public void onAttempt(String host, int attempt) {
                if (attempt > 1) {
                    recorder.event(Series.RETRIES);
                }
            }

            @Override
            public void onLocalDrop(String host, double dropProbability) {
                recorder.event(Series.LOCAL_DROPS);
            }

            @Override
            public void onBudgetExhausted(String host, RetryBudgetExhaustedException.Scope scope) {
                recorder.event(Series.BUDGET_EXHAUSTED);
            }
        };
        return new Factory() {
            @Override
            public CallTransport create(ClientSpec spec, HttpClient http, RandomGenerator random) {
                SluiceHttpClient client = SluiceHttpClient.builder()
                        .httpClient(http)
                        .scheduler(scheduler)
                        .listener(listener)
                        .time(time)
                        .random(random)
                        .defaultDeadline(CALL_DEADLINE)
                        .build();
                return new SdkTransport(client, recorder, URI.create(edge + "/v1/usage"), spec.apiKey());
            }

            @Override
            public boolean isSdk() {
                return true;
            }

            @Override
            public String description() {
                return "Sluice SDK (SluiceHttpClient), one per client: pacing from the RateLimit headers at 90 %, "
                        + "3 attempts, retry budget 10 % of its calls or at least 10 retries a minute each (the floor"
                        + " dominates a short run), adaptive throttling K = 2";
            }

            @Override
            public void close() {
                executor.shutdownNow();
            }
        };
    }

    @Override
    public CallResult call(HttpRequest request, Operation operation) throws InterruptedException {
        if (!seeded) {
            seeded = true;
            seed();
        }
        CallOptions options = CallOptions.defaults().withCost(operation == Operation.BUY_BATCH ? 10 : 1);
        try {
            HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding(), options);
            return CallResult.of(CallResult.Kind.SUCCEEDED, response.statusCode(), 0);
        } catch (QuotaExceededException e) {
            if (e.attempts() == 0) {
                recorder.event(Series.LOCAL_QUOTA);
                return CallResult.of(CallResult.Kind.QUOTA_EXCEEDED_LOCALLY, e.status(), 0);
            }
            return CallResult.of(CallResult.Kind.QUOTA_EXCEEDED, e.status(), e.attempts());
        } catch (SluiceException e) {
            return CallResult.of(kind(e), e.status(), e.attempts());
        } catch (IOException | CancellationException e) {
            return CallResult.of(CallResult.Kind.FAILED, 0, 0);
        }
    }

    private static CallResult.Kind kind(SluiceException e) {
        return switch (e) {
            case RateLimitedException r -> CallResult.Kind.RATE_LIMITED;
            case OverloadedException o -> CallResult.Kind.UNAVAILABLE;
            case RetryBudgetExhaustedException b -> CallResult.Kind.BUDGET_EXHAUSTED;
            case LocallyThrottledException d -> CallResult.Kind.LOCALLY_DROPPED;
            case ShedException s -> CallResult.Kind.SHED;
            default -> CallResult.Kind.FAILED;
        };
    }

    /** Seeds the pacer from {@code GET /v1/usage} (SPEC §4.6); a failure leaves it to the headers. */
    private void seed() throws InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(usage).timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + apiKey).GET().build();
        try {
            client.seedFromUsage(req).get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                | CancellationException e) {
            // the headers of the first answers will do
        }
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
