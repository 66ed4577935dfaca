package dev.sluice.examples.demo.fleet;

import dev.sluice.examples.demo.series.Series;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The demo's "careful" client: the JDK {@link HttpClient} and the honest retry an application would
 * write by hand — up to {@value #MAX_ATTEMPTS} attempts on 429 {@code rate_limited}, 503 and
 * transport errors (timeouts included), each after {@code Retry-After + U(0, min(20, max(1,
 * Retry-After)))} seconds (SPEC §4.3), or full jitter {@code U(0, min(20, 0.5 · 2^attempt))} without
 * one; a 429 {@code quota_exhausted} is never retried (SPEC §4.2). Retries resend the same request,
 * so a write keeps its Idempotency-Key. No budget, no throttle, no pacing: that is what the SDK
 * adds. Thread-safe (a call's state is on its own stack).
 */
public final class CarefulRetryTransport implements CallTransport {

    /** Attempts per call (SPEC §4.2: retry while attempt &lt; 3). */
    public static final int MAX_ATTEMPTS = 3;

    private final HttpClient http;
    private final Pause pause;

    CarefulRetryTransport(HttpClient http, Pause pause) {
        this.http = Objects.requireNonNull(http, "http");
        this.pause = Objects.requireNonNull(pause, "pause");
    }

    /** A factory of careful transports. */
    public static Factory factory() {
        return Factory.of(ClientKind.CAREFUL, http -> new CarefulRetryTransport(http, Pause.SLEEP));
    }

    @Override
    public CallResult call(HttpRequest request, Operation operation, RandomGenerator random)
            throws InterruptedException {
        int status = 0;
        for (int attempt = 1; ; attempt++) {
            HttpResponse<byte[]> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException e) {
                // a write carries an Idempotency-Key and a read is safe: both may be repeated
                if (attempt >= MAX_ATTEMPTS) {
                    return CallResult.of(CallResult.Kind.FAILED, status, attempt);
                }
                pause.sleep(seconds(fullJitterSeconds(attempt, random)));
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
                    pause.sleep(seconds(ra >= 0 ? ra + random.nextDouble() * Math.min(20, Math.max(1, ra))
                            : fullJitterSeconds(attempt, random)));
                }
                default -> {
                    return CallResult.of(CallResult.Kind.FAILED, status, attempt);
                }
            }
        }
    }

    private static double fullJitterSeconds(int attempt, RandomGenerator random) {
        return random.nextDouble() * Math.min(20, 0.5 * (1 << attempt));
    }

    static Duration seconds(double s) {
        return Duration.ofNanos((long) (s * 1e9));
    }
}
