package dev.sluice.client.core;

import dev.sluice.client.ClientListener;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.time.TimeSource;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What the core takes from outside: time, randomness, key minting, the listener, and optionally
 * shared stores for the pacer's bucket and the retry budget (SPEC §4.8). Tests and the simulator
 * pass a {@code ManualTimeSource} and a seeded generator.
 *
 * @param time the clocks (monotonic for waits and windows, UTC wall clock for reset instants)
 * @param random the jitter and adaptive-drop randomness; used under the core's lock, so it need
 *     not be thread-safe
 * @param idempotencyKeys mints one key per logical call (default: random UUIDs)
 * @param listener events (SPEC §4.9)
 * @param bucket the pacer's bucket, or {@code null} for an in-memory one
 * @param budget the retry budget, or {@code null} for an in-memory one
 */
public record CoreEnvironment(
        TimeSource time,
        RandomGenerator random,
        Supplier<String> idempotencyKeys,
        ClientListener listener,
        @Nullable TokenBucketStore bucket,
        @Nullable RetryBudgetStore budget) {

    public CoreEnvironment {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
        listener = listener == null ? ClientListener.none() : listener;
    }

    /** System clocks, an unseeded generator, random UUID keys, no listener, in-memory stores. */
    public static CoreEnvironment system() {
        return of(TimeSource.system(), new SplittableRandom());
    }

    /** The given clocks and randomness; UUID keys, no listener, in-memory stores. */
    public static CoreEnvironment of(TimeSource time, RandomGenerator random) {
        return new CoreEnvironment(time, random, () -> UUID.randomUUID().toString(), ClientListener.none(), null, null);
    }

    public CoreEnvironment withIdempotencyKeys(Supplier<String> keys) {
        return new CoreEnvironment(time, random, keys, listener, bucket, budget);
    }

    public CoreEnvironment withListener(ClientListener l) {
        return new CoreEnvironment(time, random, idempotencyKeys, l, bucket, budget);
    }

    public CoreEnvironment withBucket(@Nullable TokenBucketStore b) {
        return new CoreEnvironment(time, random, idempotencyKeys, listener, b, budget);
    }

    public CoreEnvironment withBudget(@Nullable RetryBudgetStore b) {
        return new CoreEnvironment(time, random, idempotencyKeys, listener, bucket, b);
    }
}
