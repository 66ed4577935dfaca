package dev.sluice.edge.decision;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A request's deadline (SPEC §3.9: work whose client deadline already passed is dropped, not
 * forwarded): the earlier of the client's {@code Request-Timeout} (delay-seconds, a decimal fraction
 * allowed: {@code 2}, {@code 0.5}) and the route's configured {@code timeout}, both counted from when
 * the edge received the head. Thread-safe (stateless).
 */
public final class Deadlines {

    /** "No deadline": neither the client nor the route set one. */
    public static final long NONE = Long.MIN_VALUE;

    /** Longer timeouts than this are treated as this (keeps the nanosecond sum far from overflow). */
    private static final Duration MAX = Duration.ofDays(1);

    private Deadlines() {
    }

    /**
     * The {@code Request-Timeout} the client sent, if it sent exactly one well-formed, non-negative
     * value; anything else (absent, several, garbage) is ignored, as an unparsable hint must not drop
     * work.
     */
    public static Optional<Duration> requestTimeout(List<String> fieldLines) {
        if (fieldLines.size() != 1) {
            return Optional.empty();
        }
        String v = fieldLines.get(0).strip();
        if (v.isEmpty() || v.length() > 20) {
            return Optional.empty();
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!(c >= '0' && c <= '9') && c != '.') {
                return Optional.empty();
            }
        }
        try {
            BigDecimal seconds = new BigDecimal(v);
            BigDecimal nanos = seconds.movePointRight(9);
            Duration d = nanos.compareTo(BigDecimal.valueOf(MAX.toNanos())) > 0
                    ? MAX : Duration.ofNanos(nanos.longValue());
            return Optional.of(d);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The effective timeout of {@code request}: the shorter of the client's and the route's, if any. */
    public static Optional<Duration> timeout(EdgeRequest request) {
        Optional<Duration> client = requestTimeout(request.head().requestTimeout());
        Optional<Duration> route = request.route().timeout();
        if (client.isEmpty()) {
            return route;
        }
        if (route.isEmpty()) {
            return client;
        }
        return Optional.of(client.get().compareTo(route.get()) <= 0 ? client.get() : route.get());
    }

    /**
     * The monotonic instant ({@code TimeSource.nanoTime()} scale) after which {@code request} is not
     * worth forwarding, or {@link #NONE}. Compare by subtraction: {@code now - deadline >= 0} means passed.
     */
    public static long deadlineNanos(EdgeRequest request) {
        return timeout(request).map(t -> request.head().receivedNanos() + t.toNanos()).orElse(NONE);
    }
}
