package dev.sluice.client.internal.http;

import java.net.http.HttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * One concern applied to each attempt's request before it goes out (in the manner of OkHttp's
 * interceptors): the request in, the request to send out. Stateless, thread-safe.
 */
interface RequestInterceptor {

    HttpRequest intercept(HttpRequest request, AttemptContext attempt);

    /** What an interceptor may know about the attempt. */
    record AttemptContext(@Nullable String idempotencyKey, long remainingDeadlineNanos, boolean hasDeadline,
            int attempt) {
    }
}
