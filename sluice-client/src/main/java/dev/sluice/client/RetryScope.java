package dev.sluice.client;

import java.util.concurrent.Callable;

/**
 * Marks code that already runs under a retrying layer, so that a Sluice call made inside it makes
 * one attempt only: retries must not multiply across layers (SPEC §4.7; with three layers of three
 * attempts a single failure becomes 27 requests).
 *
 * <p>How it works: a per-thread depth counter. {@link #call(Callable)} increments it for the
 * duration of the callable; a Sluice call <em>started</em> on a thread where {@link #isActive()} is
 * true is opened with retries off (it still paces, throttles and classifies). The marker is read
 * once, when the call starts, on the caller's thread.
 *
 * <p>With async code: a call started with {@code sendAsync} from inside the scope is marked (the
 * check is at start, on the calling thread); a continuation that runs later on another thread (for
 * example in {@code thenCompose}) is not inside the scope, which is right when the outer call has
 * completed. To carry the marker across threads explicitly, start the inner call with
 * {@code CallOptions.withoutRetries()}. Sluice runs a caller's {@link Fallback} inside the scope.
 * The marker does not cross process boundaries; a service behind another Sluice client should not
 * retry on its own (SPEC §4.7).
 */
public final class RetryScope {

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private RetryScope() {
    }

    /** True when the current thread runs inside a retrying layer. */
    public static boolean isActive() {
        return DEPTH.get()[0] > 0;
    }

    /**
     * Runs {@code body} marked as "inside a retrying layer" on the current thread.
     *
     * @throws Exception whatever {@code body} throws
     */
    public static <T> T call(Callable<T> body) throws Exception {
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            return body.call();
        } finally {
            depth[0]--;
        }
    }

    /** {@link #call(Callable)} for code that returns nothing and throws nothing checked. */
    public static void run(Runnable body) {
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            body.run();
        } finally {
            depth[0]--;
        }
    }
}
