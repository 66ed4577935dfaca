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
 * The demo's "naive" client: the retry loop of the incident in the reference documents, which turned
 * a limit of 200 requests/s into 600. Up to {@value #MAX_ATTEMPTS} attempts on <em>any</em> non-2xx
 * answer or transport error (a spent quota and a timeout included), sleeping {@code 2^attempt}
 * seconds between them (1 s, then 2 s; attempt counted from 0) with no jitter, no pacing and no
 * budget — and a new Idempotency-Key on every attempt, so a retry after a timeout whose first attempt
 * did buy its label buys a second one. Thread-safe (a call's state is on its own stack).
 */
public final class NaiveRetryTransport implements CallTransport {

    /** Attempts per call, as in the incident's loop ({@code for attempt in range(3)}). */
    public static final int MAX_ATTEMPTS = 3;

    private final HttpClient http;
    private final Pause pause;

    NaiveRetryTransport(HttpClient http, Pause pause) {
        this.http = Objects.requireNonNull(http, "http");
        this.pause = Objects.requireNonNull(pause, "pause");
    }

    /** A factory of naive transports. */
    public static Factory factory() {
        return Factory.of(ClientKind.NAIVE, http -> new NaiveRetryTransport(http, Pause.SLEEP));
    }

    @Override
    public CallResult call(HttpRequest request, Operation operation, RandomGenerator random)
            throws InterruptedException {
        CallResult.Kind last = CallResult.Kind.FAILED;
        int status = 0;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            HttpRequest sent = attempt == 0 || request.headers().firstValue("Idempotency-Key").isEmpty() ? request
                    : HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase("Idempotency-Key"))
                            .header("Idempotency-Key", Fleet.idempotencyKey(random))
                            .build();
            try {
                HttpResponse<byte[]> response = http.send(sent, HttpResponse.BodyHandlers.ofByteArray());
                status = response.statusCode();
                Series outcome = AttemptOutcomes.of(status, response.body());
                last = switch (outcome) {
                    case ADMITTED -> CallResult.Kind.SUCCEEDED;
                    case QUOTA_EXHAUSTED -> CallResult.Kind.QUOTA_EXCEEDED;
                    case RATE_LIMITED -> CallResult.Kind.RATE_LIMITED;
                    case UNAVAILABLE -> CallResult.Kind.UNAVAILABLE;
                    default -> CallResult.Kind.FAILED;
                };
                if (last == CallResult.Kind.SUCCEEDED) {
                    return CallResult.of(last, status, attempt + 1);
                }
            } catch (IOException e) {
                last = CallResult.Kind.FAILED;
            }
            if (attempt + 1 < MAX_ATTEMPTS) {
                pause.sleep(Duration.ofSeconds(1L << attempt));
            }
        }
        return CallResult.of(last, status, MAX_ATTEMPTS);
    }
}
