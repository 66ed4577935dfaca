package dev.sluice.delivery.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A WARN line with its throwable (stack trace included), at most once per {@code every}: a worker
 * whose database is down fails on every poll, and one line per poll would bury everything else.
 * The first failure is logged at once; failures within the next {@code every} are counted, and the
 * next line that is logged says how many were left out. Thread-safe.
 */
public final class RateLimitedLog {

    private final System.Logger logger;
    private final long everyNanos;
    private final LongSupplier nanoTime;
    private boolean logged;
    private long lastNanos;
    private long suppressed;

    /**
     * @param logger where lines go (the worker's is {@code System.getLogger("dev.sluice.delivery")})
     * @param every the shortest interval between two lines
     * @param nanoTime the monotonic clock (injected: tests drive it)
     */
    public RateLimitedLog(System.Logger logger, Duration every, LongSupplier nanoTime) {
        this.logger = Objects.requireNonNull(logger, "logger");
        this.everyNanos = every.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /**
     * Logs {@code message} and {@code error} at {@link Level#WARNING}, unless a line was logged
     * less than {@code every} ago.
     *
     * @return whether a line was written
     */
    public boolean warn(String message, Throwable error) {
        long left;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            if (logged && now - lastNanos < everyNanos) {
                suppressed++;
                return false;
            }
            logged = true;
            lastNanos = now;
            left = suppressed;
            suppressed = 0;
        }
        if (logger.isLoggable(Level.WARNING)) {
            logger.log(Level.WARNING, left == 0 ? message
                    : message + " (" + left + " more like it since the last line)", error);
        }
        return true;
    }
}
