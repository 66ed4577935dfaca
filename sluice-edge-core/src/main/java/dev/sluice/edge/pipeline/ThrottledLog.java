package dev.sluice.edge.pipeline;

import dev.sluice.time.TimeSource;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A log that writes at most {@code perMinute} lines a minute and then counts what it left out, saying
 * so in the next line it writes: an abusive client must not be able to flood the edge's log.
 * A failure is logged with {@link #warn(Throwable, String, Object...)}: every line it writes names
 * the throwable (class and message), and the first of each minute carries its stack trace too, so a
 * failure repeated on every request leaves a trace without a stack per request (ARCHITECTURE.md,
 * "Logging"). Thread-safe (lock-free; a line may rarely slip past the bound under contention, never
 * many).
 */
public final class ThrottledLog {

    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final Logger log;
    private final TimeSource time;
    private final int perMinute;
    private final AtomicLong windowStart;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    /** When a line last carried a stack trace; a minute before creation, so the first one does. */
    private final AtomicLong lastStackNanos;

    /** @throws IllegalArgumentException if {@code perMinute < 1} */
    public ThrottledLog(Logger log, TimeSource time, int perMinute) {
        if (perMinute < 1) {
            throw new IllegalArgumentException("perMinute: must be >= 1, was " + perMinute);
        }
        this.log = log;
        this.time = time;
        this.perMinute = perMinute;
        this.windowStart = new AtomicLong(time.nanoTime());
        this.lastStackNanos = new AtomicLong(windowStart.get() - MINUTE_NANOS);
    }

    /** Logs {@code message} (SLF4J {@code {}} placeholders) at WARN, unless the minute's lines are spent. */
    public void warn(String message, Object... args) {
        if (admit(time.nanoTime())) {
            log.warn(message, args);
        }
    }

    /**
     * Logs {@code message} (SLF4J {@code {}} placeholders, filled from {@code args}) and
     * {@code error} at WARN, unless the minute's lines are spent. The first line written in a minute
     * passes {@code error} to SLF4J as the line's throwable (its stack trace is printed); the others
     * end with {@code ": "} and {@code error.toString()}.
     *
     * @param error the failure the line is about; never {@code null}
     */
    public void warn(Throwable error, String message, Object... args) {
        long now = time.nanoTime();
        if (!admit(now)) {
            return;
        }
        Object[] withError = Arrays.copyOf(args, args.length + 1);
        long last = lastStackNanos.get();
        if (now - last >= MINUTE_NANOS && lastStackNanos.compareAndSet(last, now)) {
            withError[args.length] = error; // SLF4J takes a trailing throwable as the line's stack trace
            log.warn(message, withError);
        } else {
            withError[args.length] = error.toString();
            log.warn(message + ": {}", withError);
        }
    }

    /** Whether a line may be written now; writes the count of suppressed lines first when there are some. */
    private boolean admit(long now) {
        long start = windowStart.get();
        if (now - start >= MINUTE_NANOS && windowStart.compareAndSet(start, now)) {
            written.set(0);
        }
        if (written.incrementAndGet() > perMinute) {
            suppressed.incrementAndGet();
            return false;
        }
        long left = suppressed.getAndSet(0);
        if (left > 0) {
            log.warn("({} similar lines suppressed)", left);
        }
        return true;
    }

    /** Lines left out since the last line written. */
    public long suppressed() {
        return suppressed.get();
    }
}
