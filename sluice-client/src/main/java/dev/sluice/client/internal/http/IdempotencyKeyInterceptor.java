package dev.sluice.client.internal.http;

import java.net.http.HttpRequest;

/**
 * Puts the call's Idempotency-Key on every attempt (SPEC §4.4, R07b): the same key, minted once per
 * logical call, never a fresh one per retry. A key the caller already set on the request is left
 * as it is (the core took it as the call's key).
 */
final class IdempotencyKeyInterceptor implements RequestInterceptor {

    private final String header;

    IdempotencyKeyInterceptor(String header) {
        this.header = header;
    }

    @Override
    public HttpRequest intercept(HttpRequest request, AttemptContext attempt) {
        String key = attempt.idempotencyKey();
        if (key == null || key.equals(request.headers().firstValue(header).orElse(null))) {
            return request;
        }
        return HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(header))
                .header(header, key)
                .build();
    }
}
