package dev.sluice.delivery.spi;

import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.ReplayRefusedException;
import dev.sluice.delivery.ReviewResolution;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Where deliveries live: destinations with their shared token buckets, the outbox (events), the
 * ledger (one row per destination and idempotency key), dead letters. Every method is one
 * transaction: it takes effect whole or not at all (SPEC §6.4). Times are UTC instants supplied
 * by the caller, so that stores never read a clock of their own (except {@link #storeClock()}).
 *
 * <p>The JDBC implementation ({@link dev.sluice.delivery.jdbc.JdbcDeliveryStore}) serves SQLite
 * and PostgreSQL; both pass one contract test suite. Implementations are thread-safe.
 *
 * @see dev.sluice.delivery.Delivery the user-facing API over a store
 */
public interface DeliveryStore extends AutoCloseable {

    /**
     * Inserts or updates a destination's configuration (URL, rate, secret, idempotent). The
     * bucket's state and the enabled flag are kept: a config reload neither refills the bucket
     * nor re-enables a destination that answered 410.
     */
    void upsertDestination(Destination destination, Instant now);

    /**
     * Re-enables a disabled destination and clears its reason.
     *
     * @return {@code false} when no destination has that name
     */
    boolean enableDestination(String name, Instant now);

    /** Every destination, by name. */
    List<DestinationState> destinations();

    /**
     * The outbox write (SPEC §6.4): the event and its ledger row ({@code PENDING}, eligible at
     * {@code event.createdAt()}, expiring at {@code expiresAt}) in one transaction. A key already
     * known for the destination writes nothing and reports what it found.
     *
     * @throws dev.sluice.delivery.UnknownDestinationException if the destination is not registered
     */
    EnqueueResult enqueue(Event event, Instant expiresAt);

    /**
     * Claims up to {@code max} rows that are due at {@code now} (pending and eligible, or in flight
     * with a lapsed lease), oldest first, for {@code owner} until {@code now + lease}. Rows claimed
     * by another worker at the same time are skipped, never shared (SPEC §6.7).
     */
    List<Claim> claim(String owner, int max, Instant now, Duration lease);

    /**
     * Extends every lease {@code owner} holds to {@code leaseExpiresAt} (the heartbeat).
     *
     * @return how many rows were extended
     */
    int heartbeat(String owner, Instant leaseExpiresAt);

    /**
     * The checks before a request (SPEC §6.2), in one transaction: the ledger (delivered →
     * suppressed; not ours → lease lost), then one token from the destination's bucket (none →
     * the row is rescheduled to the next token and released), then the row is marked as sending.
     */
    AttemptStart startAttempt(Claim claim, Instant now);

    /**
     * {@link #startAttempt} for claims taken at one {@code now}, with the same answers as calling
     * it for each claim in order, in one transaction where the store can (the JDBC store marks the
     * rows in one batch and takes each destination's tokens in one batch). The default calls
     * {@link #startAttempt} once per claim.
     *
     * @return one answer per claim, in the claims' order
     */
    default List<AttemptStart> startAttempts(List<Claim> claims, Instant now) {
        return claims.stream().map(c -> startAttempt(c, now)).toList();
    }

    /**
     * {@link #claim} followed by {@link #startAttempts} for the claims that {@code startable}
     * accepts, with the same answers, in one transaction where the store can (the JDBC store: one
     * transaction and, on PostgreSQL when every claimed destination deduplicates, no wait for the
     * WAL flush, as for {@link #startAttempts}). Rows {@code startable} refuses are claimed and not
     * started: the caller settles them. {@code startable} is called inside the transaction and must
     * be a quick pure check of the claim. The default makes two transactions.
     *
     * @param owner the worker's id, written as the lease owner
     * @param max at most this many rows ({@code < 1}: none)
     * @param now the claim's and the starts' time
     * @param lease how long the claim holds without a heartbeat
     * @param startable which claims to start now
     * @return one entry per claimed row, oldest first; the start is empty when {@code startable} refused it
     */
    default List<ClaimedStart> claimAndStart(String owner, int max, Instant now, Duration lease,
            Predicate<Claim> startable) {
        return ClaimedStart.pair(claim(owner, max, now, lease), startable, toStart -> startAttempts(toStart, now));
    }

    /**
     * {@link #claimAndStart(String, int, Instant, Duration, Predicate)} with the rule of SPEC §6.2,
     * {@link Claim#takesToken}: a claim is started unless its event is past its maximum age or it
     * is an interrupted attempt to a destination that cannot deduplicate. Because the rule is known
     * in advance, a store can apply it in the database: the JDBC store on PostgreSQL claims, takes
     * every claimed destination's tokens and starts the rows in one statement (one round trip).
     * The default calls the predicate form with {@link Claim#takesToken}.
     *
     * @return one entry per claimed row, oldest first; the start is empty when the rule refused it
     */
    default List<ClaimedStart> claimAndStart(String owner, int max, Instant now, Duration lease) {
        return claimAndStart(owner, max, now, lease, c -> c.takesToken(now));
    }

    /**
     * Puts back claims whose attempt was started (its token taken, the row marked as sending) but
     * whose request was never sent: a worker that claimed ahead and stops before reaching them.
     * Each row, while the claim's lease token still holds it, becomes pending again, due at its
     * eligible time, and is no longer marked as sending, so the next holder does not take it for an
     * interrupted attempt. The tokens are not given back (the destination is sent less, never more).
     *
     * @param claims claims of this store, each started and never sent
     * @param now the time of the release (UTC)
     * @return how many rows were put back (a claim whose lease passed to another worker is skipped)
     */
    int putBack(List<Claim> claims, Instant now);

    /**
     * Records the outcome of a claim and the next scheduling in one transaction, and releases the
     * claim (SPEC §6.4). Fenced by the claim's lease token, except {@link Completion.Delivered},
     * which is recorded unless the row is delivered already.
     *
     * @return {@code false} when nothing was written because the lease had passed to another worker
     */
    boolean finish(Claim claim, Completion completion);

    /**
     * {@link #finish} whose commit the caller does not wait for in its own thread: the answer is
     * the future of the same write's result, completed once it is committed (or failed). Until
     * then the claim is not done (SPEC §6.4): a crash before the commit leaves the row in flight,
     * to be retried with the same key once its lease lapses. A store that groups commits can take
     * the next completions meanwhile. The default writes at once, in the caller's thread.
     *
     * @return the future of what {@link #finish} answers
     */
    default CompletableFuture<Boolean> finishLater(Claim claim, Completion completion) {
        try {
            return CompletableFuture.completedFuture(finish(claim, completion));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Puts back every row {@code owner} claimed but has not started sending (graceful shutdown).
     *
     * @return how many rows were released
     */
    int release(String owner, Instant now);

    /** The ledger row, or empty. */
    Optional<LedgerEntry> entry(long ledgerId);

    /** The ledger row of a destination's key, or empty. */
    Optional<LedgerEntry> entry(String destination, String idempotencyKey);

    /** Up to {@code limit} rows in {@code state}, oldest first. */
    List<LedgerEntry> entries(LedgerState state, int limit);

    /** Up to {@code limit} dead letters, newest first. */
    List<DeadLetter> deadLetters(int limit);

    /** One dead letter, or empty. */
    Optional<DeadLetter> deadLetter(long id);

    /**
     * Replays a dead letter (SPEC §6.6): its ledger row goes back to {@code PENDING}, eligible at
     * {@code now}, with the original event and idempotency key, a fresh attempt count and
     * {@code expiresAt}; the dead letter records the replay.
     *
     * @throws dev.sluice.delivery.NoSuchEntryException if there is no such dead letter
     * @throws ReplayRefusedException if the key is delivered, queued or in review, or the
     *     destination is disabled; nothing changed
     */
    LedgerEntry replay(long deadLetterId, Instant now, Instant expiresAt);

    /**
     * Resolves a {@code REVIEW} row as a person decided.
     *
     * @param redactedPayload the dead letter's copy, used only for {@link ReviewResolution#DEAD}
     * @throws dev.sluice.delivery.NoSuchEntryException if there is no such row
     * @throws ReplayRefusedException if the row is not in review; nothing changed
     */
    LedgerEntry resolveReview(long ledgerId, ReviewResolution resolution, Instant now, Instant expiresAt,
            String redactedPayload);

    /** Counts by state and dead letters by reason, as of {@code now}. */
    DeliveryStatus status(Instant now);

    /** The earliest time a row becomes claimable (eligible or lease lapse), or empty when none. */
    Optional<Instant> nextVisibleAt();

    /**
     * The store's own clock, when it has one that every replica shares (PostgreSQL's
     * {@code clock_timestamp()}); empty for an embedded store.
     */
    Optional<Instant> storeClock();

    /** Releases connections. */
    @Override
    void close();
}
