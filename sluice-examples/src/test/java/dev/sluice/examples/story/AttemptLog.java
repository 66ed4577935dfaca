package dev.sluice.examples.story;

import dev.sluice.examples.ForwardingHttpClient;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A JDK {@link HttpClient} that hands every request to another one and writes down what each attempt
 * on the wire got: its {@code Idempotency-Key}, and its status and fields, or that it timed out. It sits
 * under the SDK, so it sees every retry the SDK makes. Thread-safe.
 */
final class AttemptLog extends ForwardingHttpClient {

    /** One attempt as the wire saw it. */
    record Attempt(String idempotencyKey, int status, boolean replayed, boolean hasRetryAfter, boolean timedOut) {

        /** 409 with Retry-After: the first attempt with this key was still in flight (SPEC §3.11). */
        boolean inFlightConflict() {
            return status == 409 && hasRetryAfter;
        }
    }

    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();

    AttemptLog(HttpClient delegate) {
        super(delegate);
    }

    private final java.util.Map<String, String> keyByCall = new java.util.concurrent.ConcurrentHashMap<>();

    /** Every attempt answered or failed so far. */
    List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** The Idempotency-Key the SDK sent for the request marked {@code X-Story-Call: call}, if it sent one. */
    java.util.Optional<String> keyOfCall(String call) {
        return java.util.Optional.ofNullable(keyByCall.get(call));
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        try {
            HttpResponse<T> r = delegate.send(request, handler);
            answered(request, r);
            return r;
        } catch (IOException e) {
            failed(request, e);
            throw e;
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
            HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        CompletableFuture<HttpResponse<T>> f = pushPromiseHandler == null ? delegate.sendAsync(request, handler)
                : delegate.sendAsync(request, handler, pushPromiseHandler);
        // the caller keeps the delegate's own future, so that its cancel() still reaches the exchange
        f.whenComplete((r, e) -> {
            if (r != null) {
                answered(request, r);
            } else {
                failed(request, e);
            }
        });
        return f;
    }

    private void answered(HttpRequest request, HttpResponse<?> r) {
        attempts.add(new Attempt(key(request), r.statusCode(),
                r.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent(),
                r.headers().firstValue("Retry-After").isPresent(), false));
    }

    private void failed(HttpRequest request, Throwable e) {
        boolean timeout = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            timeout |= t instanceof HttpTimeoutException;
        }
        attempts.add(new Attempt(key(request), -1, false, false, timeout));
    }

    private String key(HttpRequest request) {
        String key = request.headers().firstValue("Idempotency-Key").orElse(null);
        request.headers().firstValue("X-Story-Call").ifPresent(call -> {
            if (key != null) {
                keyByCall.put(call, key);
            }
        });
        return key;
    }
}
