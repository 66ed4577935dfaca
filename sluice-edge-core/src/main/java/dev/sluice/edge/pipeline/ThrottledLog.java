package dev.sluice.edge.pipeline;

import dev.sluice.time.TimeSource;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A log that writes at most {@code perMinute} lines a minute and then counts what it left out, saying
 * so in the next line it writes: an abusive client must not be able to flood the edge's log.
 * Thread-safe (lock-free; a line may rarely slip past the bound under contention, never many).
 */
public final class ThrottledLog {

    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final Logger log;
    private final TimeSource time;
    private final int perMinute;
    private final AtomicLong windowStart;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    /** @throws IllegalArgumentException if {@code perMinute < 1} */
    public ThrottledLog(Logger log, TimeSource time, int perMinute) {
        if (perMinute < 1) {
            throw new IllegalArgumentException("perMinute: must be >= 1, was " + perMinute);
        }
        this.log = log;
        this.time = time;
        this.perMinute = perMinute;
        this.windowStart = new AtomicLong(time.nanoTime());
    }

    /** Logs {@code message} (SLF4J {@code {}} placeholders) at WARN, unless the minute's lines are spent. */
    public void warn(String message, Object... args) {
        long now = time.nanoTime();
        long start = windowStart.get();
        if (now - start >= MINUTE_NANOS && windowStart.compareAndSet(start, now)) {
            written.set(0);
        }
        if (written.incrementAndGet() > perMinute) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        if (left > 0) {
            log.warn("({} similar lines suppressed)", left);
        }
        log.warn(message, args);
    }

    /** Lines left out since the last line written. */
    public long suppressed() {
        return suppressed.get();
    }
}
