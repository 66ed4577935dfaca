package dev.sluice.client.core;

import dev.sluice.client.Priority;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the core needs to know about one logical call (all its attempts): nothing of the transport.
 *
 * @param method the HTTP method, upper case ({@code "GET"}, {@code "POST"})
 * @param host the authority the call goes to ({@code "api.example.com:443"}); per-host figures
 *     ("know the dependency") are kept under it
 * @param idempotencyKey the caller's Idempotency-Key, or {@code null} to let the core mint one for a
 *     non-idempotent method (SPEC §4.4)
 * @param deadline how long, from when the call is opened, it may take in total, all retries and
 *     queue waits included; {@code null} for none. Fixed once, shared by every retry (R20)
 * @param priority admission class, {@link Priority#INTERACTIVE} or {@link Priority#BACKGROUND}
 *     (SPEC §5.2)
 * @param cost pacer tokens the call takes, {@code >= 1} (a batch route may cost 10, SPEC §3.10)
 * @param attemptTimeout the transport's per-attempt timeout, if any, compared with the host's p99
 *     latency; {@code null} when unknown
 * @param retries false to make exactly one attempt: the call runs under a layer that already
 *     retries (SPEC §4.7), or the caller asked for no retries
 * @param uri the request's URI, for listener events ({@code dev.sluice.client.CallEvent});
 *     {@code null} when there is none (a simulator)
 */
public record CallSpec(
        String method,
        String host,
        @Nullable String idempotencyKey,
        @Nullable Duration deadline,
        Priority priority,
        int cost,
        @Nullable Duration attemptTimeout,
        boolean retries,
        java.net.@Nullable URI uri) {

    /** RFC 9110 §9.2.2: methods whose repetition has the same intended effect as one request. */
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

    public CallSpec {
        Objects.requireNonNull(method, "method");
        method = method.toUpperCase(Locale.ROOT);
        host = host == null ? "" : host;
        if (deadline != null && deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative: " + deadline);
        }
        Objects.requireNonNull(priority, "priority");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1: " + cost);
        }
        if (idempotencyKey != null && idempotencyKey.isBlank()) {
            throw new IllegalArgumentException("idempotencyKey must not be blank");
        }
    }

    /** A call with no URI (a simulator's, a test's). */
    public CallSpec(String method, String host, @Nullable String idempotencyKey, @Nullable Duration deadline,
            Priority priority, int cost, @Nullable Duration attemptTimeout, boolean retries) {
        this(method, host, idempotencyKey, deadline, priority, cost, attemptTimeout, retries, null);
    }

    /** An interactive call of cost 1 with no deadline, no caller key, retries on. */
    public static CallSpec of(String method, String host) {
        return new CallSpec(method, host, null, null, Priority.INTERACTIVE, 1, null, true);
    }

    /** Whether the method is idempotent (RFC 9110 §9.2.2). */
    public boolean idempotentMethod() {
        return switch (method) { // the set below, without hashing into a Set on every call
            case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
            default -> false;
        };
    }

    public CallSpec withIdempotencyKey(@Nullable String key) {
        return new CallSpec(method, host, key, deadline, priority, cost, attemptTimeout, retries, uri);
    }

    public CallSpec withDeadline(@Nullable Duration d) {
        return new CallSpec(method, host, idempotencyKey, d, priority, cost, attemptTimeout, retries, uri);
    }

    public CallSpec withPriority(Priority p) {
        return new CallSpec(method, host, idempotencyKey, deadline, p, cost, attemptTimeout, retries, uri);
    }

    public CallSpec withCost(int c) {
        return new CallSpec(method, host, idempotencyKey, deadline, priority, c, attemptTimeout, retries, uri);
    }

    public CallSpec withAttemptTimeout(@Nullable Duration t) {
        return new CallSpec(method, host, idempotencyKey, deadline, priority, cost, t, retries, uri);
    }

    public CallSpec withUri(java.net.@Nullable URI u) {
        return new CallSpec(method, host, idempotencyKey, deadline, priority, cost, attemptTimeout, retries, u);
    }

    public CallSpec withRetries(boolean r) {
        return new CallSpec(method, host, idempotencyKey, deadline, priority, cost, attemptTimeout, r, uri);
    }
}
