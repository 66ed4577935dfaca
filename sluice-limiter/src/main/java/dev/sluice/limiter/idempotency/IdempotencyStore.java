package dev.sluice.limiter.idempotency;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where idempotency records live (SPEC §3.11): the in-memory store of one process
 * ({@link InMemoryIdempotencyStore}) or a shared store such as Redis, so that a retry landing on
 * another edge replica still finds the record.
 *
 * <p><b>Life of a record.</b> One record per {@link IdempotencyKey} (API key + {@code Idempotency-Key}):
 * <ol>
 *   <li>{@link #begin} atomically creates an <em>in-flight marker</em> holding the request's
 *       {@link RequestTarget} and a fresh claim token, if no live record exists ({@link Claim.Acquired});
 *       otherwise it reports the live record ({@link Claim.InFlight}, {@link Claim.Conflict},
 *       {@link Claim.Completed}) and changes nothing. The marker lives for {@code lease}: if its
 *       holder never completes or abandons it (a crashed replica), the next {@code begin} after the
 *       lease may acquire it afresh.</li>
 *   <li>{@link #complete} replaces the marker with the full {@link RequestFingerprint} and the
 *       {@link RecordedResponse}, kept for {@code retention} (the edge's default: 24 h) from that
 *       moment; {@link #abandon} deletes the marker instead (the request never reached an answer worth
 *       keeping, so a retry may go through). Both act only while the record is still the claim named by
 *       the token: a holder whose lease ran out and whose key was claimed again changes nothing.</li>
 *   <li>After its lease or retention a record is gone: {@link #lookup} shows nothing and
 *       {@link #begin} acquires.</li>
 * </ol>
 *
 * <p><b>Precedence in {@link #begin}</b>: a live record whose target (method, path) differs from the
 * caller's is {@link Claim.Conflict} whether in flight or completed; with the same target it is
 * {@link Claim.InFlight} or {@link Claim.Completed}. The body digest is not known at {@code begin} (the
 * edge claims from the request head and digests the body while it streams), so comparing it is the
 * caller's job on {@link Claim.Completed}.
 *
 * <p><b>Time.</b> The store owns its clock: the in-memory store reads a {@link dev.sluice.time.TimeSource}'s
 * monotonic nanos; a Redis store would use key TTLs ({@code SET NX PX lease} for the marker,
 * {@code PX retention} on completion), i.e. the server's clock, shared by every replica.
 *
 * <p><b>Atomicity</b> a shared store must provide: {@code begin} is one atomic step (e.g. a script
 * that reads the record and, when absent, writes the marker); {@code complete} and {@code abandon} are
 * compare-and-set on the token (a script). Exactly one of many concurrent {@code begin}s on an absent
 * key acquires.
 *
 * <p>Contract (tested for every store by the abstract {@code IdempotencyStoreContract} in this module's
 * test jar). Every method is thread-safe. The {@code ...Async} variants are what an event loop calls:
 * a network store completes them when its reply arrives (never blocking the caller), the in-memory
 * store (the defaults here) answers at once. A store that cannot answer completes the async stage
 * exceptionally (or throws from the blocking method); the edge then answers 503
 * {@code idempotency_store_unavailable} rather than risk carrying a retry out twice (or, configured so,
 * forwards without a record), and retries a {@code complete} or {@code abandon} that failed.
 */
public interface IdempotencyStore extends AutoCloseable {

    /**
     * Claims {@code key} for a request to {@code target}, or reports the record that already holds it.
     *
     * @param key the record's identity
     * @param target the request's method and path
     * @param lease how long the in-flight marker lives if never completed or abandoned; &gt; 0 (the
     *     edge uses its upstream response timeout plus a margin)
     * @return {@link Claim.Acquired} with a new token, or the live record's state; never {@code null}
     * @throws IllegalArgumentException if {@code lease} is not positive
     * @throws NullPointerException if an argument is {@code null}
     */
    Claim begin(IdempotencyKey key, RequestTarget target, Duration lease);

    /**
     * Records the answer of the claim named by {@code token}, replacing its in-flight marker; the
     * record then lives for {@code retention}.
     *
     * @param fingerprint the request's full fingerprint; its target must be the claimed target
     * @param response the answer to replay
     * @param retention how long the record is kept from now; &gt; 0
     * @return {@code true} if recorded; {@code false} if the record is no longer this claim (lease ran
     *     out and the key was claimed again, abandoned, or already completed), in which case nothing
     *     changed
     * @throws IllegalArgumentException if {@code retention} is not positive, or the fingerprint's
     *     target is not the claimed one (a caller bug)
     */
    boolean complete(IdempotencyKey key, String token, RequestFingerprint fingerprint, RecordedResponse response,
            Duration retention);

    /**
     * Deletes the in-flight marker of the claim named by {@code token}, so that a retry may acquire the
     * key (the request was rejected before the upstream, or the upstream could not answer).
     *
     * @return {@code true} if the marker was this claim's and is gone; {@code false} otherwise (nothing
     *     changed)
     */
    boolean abandon(IdempotencyKey key, String token);

    /** The live record of {@code key}, if any (expired records are never shown). */
    Optional<IdempotencyRecord> lookup(IdempotencyKey key);

    /** {@link #begin} without blocking the caller; see the class comment. */
    default CompletionStage<Claim> beginAsync(IdempotencyKey key, RequestTarget target, Duration lease) {
        try {
            return CompletableFuture.completedFuture(begin(key, target, lease));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #complete} without blocking the caller. */
    default CompletionStage<Boolean> completeAsync(IdempotencyKey key, String token, RequestFingerprint fingerprint,
            RecordedResponse response, Duration retention) {
        try {
            return CompletableFuture.completedFuture(complete(key, token, fingerprint, response, retention));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #abandon} without blocking the caller. */
    default CompletionStage<Boolean> abandonAsync(IdempotencyKey key, String token) {
        try {
            return CompletableFuture.completedFuture(abandon(key, token));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #lookup} without blocking the caller. */
    default CompletionStage<Optional<IdempotencyRecord>> lookupAsync(IdempotencyKey key) {
        try {
            return CompletableFuture.completedFuture(lookup(key));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Releases connections or threads the store holds; the in-memory store holds none. */
    @Override
    default void close() {}
}
