package dev.sluice.edge.softlimit;

import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.time.TimeSource;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards {@link QuotaWarning}s to a {@link QuotaWarningSink} at most once per key, policy and
 * window (SPEC §3.8). The limiter stage proposes a warning only when a request crossed the threshold
 * ({@code used − cost < threshold ≤ used}); this class also remembers the last window it warned for,
 * so a refund that takes a key back under the threshold (an upstream 503) cannot make it warn twice.
 *
 * <p>Memory: one entry per (key, quota policy) that has ever crossed, replaced in place by later
 * windows; bounded by the configured keys. Thread-safe.
 */
public final class SoftLimitNotifier {

    private static final Logger LOG = LoggerFactory.getLogger(SoftLimitNotifier.class);

    private final QuotaWarningSink sink;
    /** A sink that is down fails for every key crossing its threshold: a few lines a minute, one stack. */
    private final ThrottledLog failures = new ThrottledLog(LOG, TimeSource.system(), 10);
    private final ConcurrentHashMap<String, Long> lastWindow = new ConcurrentHashMap<>();

    public SoftLimitNotifier(QuotaWarningSink sink) {
        this.sink = sink;
    }

    /** Emits {@code warning} unless one was already emitted for its key, policy and window. */
    public void offer(QuotaWarning warning) {
        long window = warning.windowResetAt().getEpochSecond();
        Long previous = lastWindow.put(warning.keyId() + '\u0000' + warning.policy(), window);
        if (previous != null && previous == window) {
            return;
        }
        try {
            sink.onQuotaWarning(warning);
        } catch (RuntimeException e) {
            failures.warn(e, "quota.warning sink failed for policy {}", warning.policy());
        }
    }
}
