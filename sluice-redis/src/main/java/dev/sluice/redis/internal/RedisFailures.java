package dev.sluice.redis.internal;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * How the Redis stores tell an unavailable server (fall back, SPEC §3.14) from a bug (log it), and how
 * they name a failure in one log line.
 */
public final class RedisFailures {

    private RedisFailures() {}

    /**
     * Whether {@code cause} means Redis cannot serve now: a timeout, a refused or dropped connection,
     * or a reply of a server that is busy, loading, read-only or without a master ({@code BUSY},
     * {@code LOADING}, {@code MASTERDOWN}, {@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code READONLY}).
     * A reply the store could not read ({@link IllegalStateException}, {@link ClassCastException},
     * {@link IndexOutOfBoundsException}) is a bug, not an outage.
     */
    public static boolean isAvailabilityFailure(Throwable cause) {
        if (cause instanceof RedisCommandExecutionException ex) {
            String m = ex.getMessage() == null ? "" : ex.getMessage();
            return m.startsWith("BUSY") || m.startsWith("LOADING") || m.startsWith("MASTERDOWN")
                    || m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN") || m.startsWith("READONLY");
        }
        return !(cause instanceof IllegalStateException || cause instanceof ClassCastException
                || cause instanceof IndexOutOfBoundsException);
    }

    /** {@code SimpleClassName: message}, or the class name alone when there is no message. */
    public static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
