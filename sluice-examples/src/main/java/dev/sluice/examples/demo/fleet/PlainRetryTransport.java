package dev.sluice.examples.demo.fleet;

import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The fleet's client without the SDK: the JDK {@link HttpClient} and the simple, honest retry an
 * application would write by hand — up to {@value #MAX_ATTEMPTS} attempts on 429
 * {@code rate_limited} and 503, each after {@code Retry-After + U(0, min(20, max(1, Retry-After)))}
 * seconds (SPEC §4.3), or full jitter {@code U(0, min(20, 0.5 · 2^attempt))} without one; a 429
 * {@code quota_exhausted} is never retried (SPEC §4.2). No budget, no throttle, no pacing: that is
 * what the SDK adds. Retries resend the same request, so a write keeps its Idempotency-Key.
 */
public final class PlainRetryTransport implements CallTransport {

    /** Attempts per call (SPEC §4.2: retry while attempt &lt; 3). */
    public static final int MAX_ATTEMPTS = 3;

    private final HttpClient http;
    private final SeriesRecorder recorder;
    private final RandomGenerator random;

    PlainRetryTransport(HttpClient http, SeriesRecorder recorder, RandomGenerator random) {
        this.http = Objects.requireNonNull(http, "http");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** A factory of plain transports that count retries into {@code recorder}. */
    public static Factory factory(SeriesRecorder recorder) {
        return new Factory() {
            @Override
            public CallTransport create(ClientSpec spec, HttpClient http, RandomGenerator random) {
                return new PlainRetryTransport(http, recorder, random);
            }

            @Override
            public boolean isSdk() {
                return false;
            }

            @Override
            public String description() {
                return "plain JDK HttpClient: " + MAX_ATTEMPTS + " attempts, Retry-After + jitter, no budget";
            }
        };
    }

    @Override
    public CallResult call(HttpRequest request, Operation operation) throws InterruptedException {
        int status = 0;
        for (int attempt = 1; ; attempt++) {
            if (attempt > 1) {
                recorder.event(Series.RETRIES);
            }
            HttpResponse<byte[]> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException e) {
                // a write carries an Idempotency-Key and a read is safe: both may be repeated
                if (attempt >= MAX_ATTEMPTS) {
                    return CallResult.of(CallResult.Kind.FAILED, status, attempt);
                }
                sleepSeconds(fullJitterSeconds(attempt));
                continue;
            }
            status = response.statusCode();
            Series outcome = AttemptOutcomes.of(status, response.body());
            switch (outcome) {
                case ADMITTED -> {
                    return CallResult.of(CallResult.Kind.SUCCEEDED, status, attempt);
                }
                case QUOTA_EXHAUSTED -> {
                    return CallResult.of(CallResult.Kind.QUOTA_EXCEEDED, status, attempt);
                }
                case RATE_LIMITED, UNAVAILABLE -> {
                    if (attempt >= MAX_ATTEMPTS) {
                        return CallResult.of(outcome == Series.RATE_LIMITED ? CallResult.Kind.RATE_LIMITED
                                : CallResult.Kind.UNAVAILABLE, status, attempt);
                    }
                    long ra = AttemptOutcomes.retryAfterSeconds(response.headers().firstValue("Retry-After").orElse(null));
                    sleepSeconds(ra >= 0 ? ra + random.nextDouble() * Math.min(20, Math.max(1, ra))
                            : fullJitterSeconds(attempt));
                }
                default -> {
                    return CallResult.of(CallResult.Kind.FAILED, status, attempt);
                }
            }
        }
    }

    private double fullJitterSeconds(int attempt) {
        return random.nextDouble() * Math.min(20, 0.5 * (1 << attempt));
    }

    private static void sleepSeconds(double seconds) throws InterruptedException {
        Thread.sleep(Duration.ofNanos((long) (seconds * 1e9)));
    }
}
