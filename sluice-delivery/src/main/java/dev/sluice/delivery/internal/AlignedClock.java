package dev.sluice.delivery.internal;

import dev.sluice.delivery.spi.DeliveryStore;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A {@link TimeSource} whose wall clock follows the store's (SPEC §6.4: a worker tolerates modest
 * skew). Eligible times and leases are compared across replicas; if each replica used its own
 * clock, one running 5 s ahead would claim a row 5 s before the Retry-After another replica wrote,
 * and one running ahead by more than the lease would take leases from live workers. Measuring the
 * offset to the shared store's clock (PostgreSQL {@code clock_timestamp()}, halfway through the
 * round trip) makes every replica read the same time, to within the round trip.
 *
 * <p>The monotonic clock is not touched. Without a store clock (SQLite: one node) the offset
 * stays zero. Thread-safe.
 */
public final class AlignedClock implements TimeSource {

    private final TimeSource base;
    private volatile long offsetNanos;

    public AlignedClock(TimeSource base) {
        this.base = base;
    }

    /**
     * Measures the offset to {@code store}'s clock now.
     *
     * @return the offset applied (store minus local), or empty when the store has no clock
     */
    public Optional<Duration> align(DeliveryStore store) {
        long t0 = base.nanoTime();
        Instant local0 = base.now();
        Optional<Instant> storeNow = store.storeClock();
        long rtt = base.nanoTime() - t0;
        if (storeNow.isEmpty()) {
            return Optional.empty();
        }
        Instant localMid = local0.plusNanos(rtt / 2);
        Duration offset = Duration.between(localMid, storeNow.get());
        offsetNanos = offset.toNanos();
        return Optional.of(offset);
    }

    /** The current offset (store minus local). */
    public Duration offset() {
        return Duration.ofNanos(offsetNanos);
    }

    @Override
    public long nanoTime() {
        return base.nanoTime();
    }

    @Override
    public Instant now() {
        return base.now().plusNanos(offsetNanos);
    }
}
