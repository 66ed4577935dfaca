package dev.sluice.edge.route;

import dev.sluice.limiter.spi.FailureMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the configuration's {@code routes} (DESIGN.md "Configuration"): which requests it
 * covers (method and path pattern) and how the edge treats them.
 *
 * @param method the request method it covers ({@code GET}, {@code POST}, ...) or {@code *} for any
 * @param path the path pattern
 * @param cost units of every {@code requests}-unit policy one request charges (SPEC §3.10), ≥ 0
 * @param criticality the shedding level (SPEC §3.9; stored now, used by the shedder stage)
 * @param anonymous whether the route needs no API key: it is limited per client IP and reveals no
 *     limit state (SPEC §3.7)
 * @param dryRun whether denials are only counted and reported in headers, never enforced
 *     (SPEC §3.13a)
 * @param idempotencyRequired whether requests must carry {@code Idempotency-Key} (SPEC §3.11;
 *     stored now, enforced by the idempotency stage)
 * @param handler who answers: the upstream, or the edge itself ({@code GET /v1/usage})
 * @param timeout how long a request of this route is worth forwarding after the edge received it
 *     (SPEC §3.9: past it, the request is dropped instead); combined with the client's
 *     {@code Request-Timeout}, the shorter wins; empty for none
 * @param failureMode what a shared store answers for this route when it cannot reach its state in time
 *     (SPEC §3.14: e.g. {@link FailureMode#FAIL_CLOSED} for a route whose limit must never be exceeded);
 *     empty: the store's own {@code failure-mode}. No effect with the in-memory store, which never fails
 */
public record Route(String method, PathPattern path, long cost, Criticality criticality, boolean anonymous,
        boolean dryRun, boolean idempotencyRequired, Handler handler, Optional<Duration> timeout,
        Optional<FailureMode> failureMode) {

    /** Who answers a route's requests. */
    public enum Handler {
        /** Proxied to the upstream after the decision. */
        PROXY,
        /** Answered by the edge from limiter state, never charged (SPEC §3.6). */
        USAGE
    }

    /** {@link #method()} value matching any method. */
    public static final String ANY_METHOD = "*";

    /**
     * @throws IllegalArgumentException when the cost is negative or the method is not a token
     */
    public Route {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(criticality, "criticality");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(failureMode, "failureMode");
        if (timeout.isPresent() && (timeout.get().isNegative() || timeout.get().isZero())) {
            throw new IllegalArgumentException("timeout: must be > 0, was " + timeout.get());
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost: must be >= 0, was " + cost);
        }
        String problem = methodProblem(method);
        if (problem != null) {
            throw new IllegalArgumentException("method: " + problem);
        }
        if (!method.equals(ANY_METHOD)) {
            method = method.toUpperCase(Locale.ROOT);
        }
    }

    /** A route deciding by the store's own failure mode. */
    public Route(String method, PathPattern path, long cost, Criticality criticality, boolean anonymous,
            boolean dryRun, boolean idempotencyRequired, Handler handler, Optional<Duration> timeout) {
        this(method, path, cost, criticality, anonymous, dryRun, idempotencyRequired, handler, timeout,
                Optional.empty());
    }

    /** Why {@code method} is not a usable method ({@code GET}, ... or {@code *}), or {@code null}. */
    public static String methodProblem(String method) {
        if (method.equals(ANY_METHOD)) {
            return null;
        }
        if (method.isEmpty()) {
            return "must not be empty";
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (!(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && c != '-' && c != '_') {
                return "must be a token such as GET or *, was \"" + method + "\"";
            }
        }
        return null;
    }

    /** A proxied, authenticated route of cost 1, criticality {@link Criticality#CRITICAL}. */
    public static Route of(String method, String pathPattern) {
        return new Route(method, PathPattern.compile(pathPattern), 1, Criticality.CRITICAL, false, false, false,
                Handler.PROXY, Optional.empty(), Optional.empty());
    }

    /** Whether this route covers a request with {@code requestMethod} and {@code requestPath}. */
    public boolean matches(String requestMethod, CharSequence requestPath) {
        return (method.equals(ANY_METHOD) || method.equals(requestMethod)) && path.matches(requestPath);
    }

    /**
     * The route's name in logs and metrics labels: {@code POST /v1/labels}. Bounded by the
     * configuration, never by traffic (SPEC §3.13: no unbounded label values).
     */
    public String id() {
        return method + " " + path;
    }

    public Route withCost(long newCost) {
        return new Route(method, path, newCost, criticality, anonymous, dryRun, idempotencyRequired, handler, timeout,
                failureMode);
    }

    public Route withDryRun(boolean newDryRun) {
        return new Route(method, path, cost, criticality, anonymous, newDryRun, idempotencyRequired, handler, timeout,
                failureMode);
    }

    public Route withAnonymous(boolean newAnonymous) {
        return new Route(method, path, cost, criticality, newAnonymous, dryRun, idempotencyRequired, handler, timeout,
                failureMode);
    }

    public Route withCriticality(Criticality newCriticality) {
        return new Route(method, path, cost, newCriticality, anonymous, dryRun, idempotencyRequired, handler, timeout,
                failureMode);
    }

    public Route withIdempotencyRequired(boolean required) {
        return new Route(method, path, cost, criticality, anonymous, dryRun, required, handler, timeout, failureMode);
    }

    public Route withTimeout(Optional<Duration> newTimeout) {
        return new Route(method, path, cost, criticality, anonymous, dryRun, idempotencyRequired, handler, newTimeout,
                failureMode);
    }

    public Route withHandler(Handler newHandler) {
        return new Route(method, path, cost, criticality, anonymous, dryRun, idempotencyRequired, newHandler, timeout,
                failureMode);
    }

    /** A copy answering by {@code mode} when a shared store cannot decide; empty: the store's mode. */
    public Route withFailureMode(Optional<FailureMode> mode) {
        return new Route(method, path, cost, criticality, anonymous, dryRun, idempotencyRequired, handler, timeout,
                mode);
    }
}
