package dev.sluice.client.internal.http;

import java.net.http.HttpRequest;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Bounds each attempt: the request's own timeout, else the client's default attempt timeout,
 * clipped to what is left of the call's deadline, so no attempt runs past the point where its
 * caller has given up (R20).
 */
final class AttemptTimeoutInterceptor implements RequestInterceptor {

    private final @Nullable Duration defaultTimeout;

    AttemptTimeoutInterceptor(@Nullable Duration defaultTimeout) {
        this.defaultTimeout = defaultTimeout;
    }

    @Override
    public HttpRequest intercept(HttpRequest request, AttemptContext attempt) {
        Duration timeout = request.timeout().orElse(defaultTimeout);
        if (attempt.hasDeadline()) {
            Duration left = Duration.ofNanos(Math.max(1_000_000L, attempt.remainingDeadlineNanos()));
            if (timeout == null || left.compareTo(timeout) < 0) {
                timeout = left;
            }
        }
        if (timeout == null || timeout.equals(request.timeout().orElse(null))) {
            return request;
        }
        return HttpRequest.newBuilder(request, (n, v) -> true).timeout(timeout).build();
    }
}
