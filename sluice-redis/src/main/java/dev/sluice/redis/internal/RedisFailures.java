package dev.sluice.redis.internal;

import io.lettuce.core.RedisCommandExecutionException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * How the Redis stores tell an unavailable server (fall back, SPEC §3.14) from a server that answers
 * errors, and how they name a failure in one log line.
 */
public final class RedisFailures {

    private RedisFailures() {}

    /**
     * Whether {@code cause} means Redis cannot serve now: a timeout, a refused or dropped connection,
     * or a reply of a server that is busy, loading, read-only or without a master ({@code BUSY},
     * {@code LOADING}, {@code MASTERDOWN}, {@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code READONLY}).
     * Any other error reply, and a reply the store could not read ({@link IllegalStateException},
     * {@link ClassCastException}, {@link IndexOutOfBoundsException}), is not an outage.
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

    /**
     * Why an error reply means Redis is deployed otherwise than the store expects, as a hint for the log
     * line, or {@code null}: {@code MOVED} / {@code ASK} (a cluster node reached as one server),
     * {@code CROSSSLOT} or a script's non-local key (a script call's keys in several slots),
     * {@code NOSCRIPT} after the script was loaded (a proxy that spreads calls over servers), a cluster
     * command refused by a server with cluster support disabled.
     */
    public static String topologyHint(Throwable cause) {
        String m = cause == null || cause.getMessage() == null ? "" : cause.getMessage();
        if (m.startsWith("MOVED") || m.startsWith("ASK")) {
            return "a Redis Cluster node reached as one server: use a redis-cluster:// URL";
        }
        if (m.startsWith("CROSSSLOT") || m.contains("non local key")) {
            return "a script call's keys are in several cluster slots";
        }
        if (m.startsWith("NOSCRIPT")) {
            return "the script is missing right after it was loaded: calls reach another server than loads do";
        }
        if (m.contains("cluster support disabled")) {
            return "a server with cluster support disabled reached as a cluster: use a redis:// URL";
        }
        return null;
    }

    /** {@code SimpleClassName: message}, or the class name alone when there is no message. */
    public static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** The messages of {@code e}, its causes and their suppressed exceptions, joined: for matching a reason. */
    public static String describeChain(Throwable e) {
        StringBuilder sb = new StringBuilder();
        append(e, sb, new IdentityHashMap<>());
        return sb.toString();
    }

    private static void append(Throwable e, StringBuilder sb, Map<Throwable, Boolean> seen) {
        if (e == null || seen.put(e, Boolean.TRUE) != null || seen.size() > 32) {
            return;
        }
        sb.append(describe(e)).append("; ");
        for (Throwable s : e.getSuppressed()) {
            append(s, sb, seen);
        }
        append(e.getCause(), sb, seen);
    }
}
