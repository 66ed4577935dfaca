package dev.sluice.delivery.jdbc;

import java.time.Instant;

/** Instants as Unix epoch microseconds, the store's time unit (portable across SQLite and PostgreSQL). */
final class Micros {

    private Micros() {
    }

    /** {@code instant} in microseconds, rounded down. */
    static long of(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** {@code instant} in microseconds, rounded up: for "not before" times, so that rounding never advances them. */
    static long ceil(Instant instant) {
        long m = of(instant);
        return instant.getNano() % 1_000 == 0 ? m : m + 1;
    }

    static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
