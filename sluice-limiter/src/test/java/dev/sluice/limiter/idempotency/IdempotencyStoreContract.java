package dev.sluice.limiter.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link IdempotencyStore} must have (SPEC §3.11). Each store's test class extends
 * this and builds the store on the given {@link TimeSource}.
 *
 * <p>Leases and retention are exercised through {@link #elapse(Duration)}, which by default advances the
 * fake clock. A store whose expiry runs on its server's clock (Redis key TTLs) overrides it to make
 * that much time pass for the store (e.g. by passing the fake clock's reading to its scripts in test
 * mode, as the limiter's Redis store does); it must not sleep.
 *
 * <p>The blocking methods are tested directly; {@link #asyncVariantsAgreeWithTheBlockingOnes} runs one
 * record's whole life through the {@code ...Async} methods, which a network store must implement
 * without blocking.
 */
public abstract class IdempotencyStoreContract {

    /** SPEC §3.11: records expire after 24 h by default. */
    protected static final Duration RETENTION = Duration.ofHours(24);
    protected static final Duration LEASE = Duration.ofSeconds(35);

    protected static final IdempotencyKey KEY = new IdempotencyKey("sk_test_free_1", "5f1c2b7e-0001");
    protected static final RequestTarget POST_LABELS = new RequestTarget("POST", "/v1/labels");
    protected static final RequestFingerprint LABEL_BODY = RequestFingerprint.of(POST_LABELS,
            sha256("{\"shipment_id\":\"shp_4410\",\"rate_id\":\"rate_ups_ground\"}"));
    protected static final RecordedResponse CREATED = new RecordedResponse.Replayable(201,
            List.of(new RecordedResponse.Field("Content-Type", "application/json"),
                    new RecordedResponse.Field("Location", "/v1/labels/lbl_77120")),
            "{\"label_id\":\"lbl_77120\"}".getBytes(StandardCharsets.UTF_8));

    protected ManualTimeSource time;
    protected IdempotencyStore store;

    /** A new, empty store reading {@code time}. */
    protected abstract IdempotencyStore newStore(TimeSource time);

    /** Makes {@code amount} of time pass for the store; the default advances the fake clock. */
    protected void elapse(Duration amount) {
        time.advance(amount);
    }

    @BeforeEach
    void openStore() {
        time = ManualTimeSource.at("2026-11-30T17:00:00Z");
        store = newStore(time);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected static byte[] sha256(String body) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    protected String acquire(IdempotencyKey key, RequestTarget target) {
        Claim c = store.begin(key, target, LEASE);
        assertThat(c).isInstanceOf(Claim.Acquired.class);
        return ((Claim.Acquired) c).token();
    }

    @Test
    void theFirstRequestAcquiresTheKey() {
        Claim c = store.begin(KEY, POST_LABELS, LEASE);

        assertThat(c).isInstanceOf(Claim.Acquired.class);
        assertThat(store.lookup(KEY)).hasValueSatisfying(r -> {
            assertThat(r.inFlight()).isTrue();
            assertThat(r.target()).isEqualTo(POST_LABELS);
        });
    }

    @Test
    void aDuplicateWhileTheFirstIsInFlightIsToldSoAndChangesNothing() {
        String token = acquire(KEY, POST_LABELS);

        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.InFlight(POST_LABELS));
        // the first request's claim is intact: it can still complete
        assertThat(store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION)).isTrue();
    }

    @Test
    void aCompletedRecordIsReplayedWithItsFingerprintAndWholeAnswer() {
        String token = acquire(KEY, POST_LABELS);
        assertThat(store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION)).isTrue();

        Claim c = store.begin(KEY, POST_LABELS, LEASE);

        assertThat(c).isEqualTo(new Claim.Completed(LABEL_BODY, CREATED));
        RecordedResponse.Replayable r = (RecordedResponse.Replayable) ((Claim.Completed) c).response();
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.fields()).containsExactlyElementsOf(((RecordedResponse.Replayable) CREATED).fields());
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("{\"label_id\":\"lbl_77120\"}");
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(c); // and again: a replay changes nothing
    }

    @Test
    void aNotReplayableAnswerIsRecordedAsSuch() {
        RecordedResponse big = new RecordedResponse.NotReplayable(200, "the response body exceeded 65536 bytes");
        String token = acquire(KEY, POST_LABELS);
        store.complete(KEY, token, LABEL_BODY, big, RETENTION);

        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.Completed(LABEL_BODY, big));
    }

    @Test
    void anotherMethodOrPathConflictsInFlightAndCompleted() {
        RequestTarget other = new RequestTarget("POST", "/v1/refunds");
        String token = acquire(KEY, POST_LABELS);

        assertThat(store.begin(KEY, other, LEASE)).isEqualTo(new Claim.Conflict(POST_LABELS));
        store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION);
        assertThat(store.begin(KEY, other, LEASE)).isEqualTo(new Claim.Conflict(POST_LABELS));
        assertThat(store.begin(KEY, new RequestTarget("PUT", "/v1/labels"), LEASE))
                .isEqualTo(new Claim.Conflict(POST_LABELS));
    }

    @Test
    void recordsArePartitionedByApiKey() {
        IdempotencyKey sameValueOtherApiKey = new IdempotencyKey("sk_test_pro_1", KEY.value());
        String token = acquire(KEY, POST_LABELS);
        store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION);

        assertThat(store.begin(sameValueOtherApiKey, POST_LABELS, LEASE)).isInstanceOf(Claim.Acquired.class);
        assertThat(store.lookup(new IdempotencyKey("sk_test_pro_2", KEY.value()))).isEmpty();
    }

    @Test
    void abandoningLetsTheNextRequestAcquire() {
        String token = acquire(KEY, POST_LABELS);

        assertThat(store.abandon(KEY, token)).isTrue();
        assertThat(store.lookup(KEY)).isEmpty();
        String second = acquire(KEY, POST_LABELS);
        assertThat(second).isNotEqualTo(token);
    }

    @Test
    void onlyTheClaimsOwnTokenCompletesOrAbandons() {
        String token = acquire(KEY, POST_LABELS);

        assertThat(store.abandon(KEY, token + "x")).isFalse();
        assertThat(store.complete(KEY, token + "x", LABEL_BODY, CREATED, RETENTION)).isFalse();
        assertThat(store.lookup(KEY)).hasValueSatisfying(r -> assertThat(r.inFlight()).isTrue());
    }

    @Test
    void aCompletedRecordCannotBeAbandonedOrCompletedAgain() {
        String token = acquire(KEY, POST_LABELS);
        store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION);

        assertThat(store.abandon(KEY, token)).isFalse();
        assertThat(store.complete(KEY, token, LABEL_BODY, new RecordedResponse.Replayable(500, List.of(),
                new byte[0]), RETENTION)).isFalse();
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.Completed(LABEL_BODY, CREATED));
    }

    @Test
    void anExpiredLeaseLetsARetryAcquireAndTheOldHolderChangesNothing() {
        String first = acquire(KEY, POST_LABELS);
        elapse(LEASE.minusMillis(1));
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.InFlight.class);

        elapse(Duration.ofMillis(1));
        String second = acquire(KEY, POST_LABELS);

        assertThat(second).isNotEqualTo(first);
        assertThat(store.complete(KEY, first, LABEL_BODY, CREATED, RETENTION)).isFalse();
        assertThat(store.abandon(KEY, first)).isFalse();
        assertThat(store.complete(KEY, second, LABEL_BODY, CREATED, RETENTION)).isTrue();
    }

    @Test
    void aHolderPastItsLeaseStillCompletesWhileNobodyTookTheKey() {
        String token = acquire(KEY, POST_LABELS);
        elapse(LEASE.plusSeconds(5));

        assertThat(store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION)).isTrue();
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.Completed(LABEL_BODY, CREATED));
    }

    @Test
    void aRecordIsForgottenAfterItsRetentionCountedFromCompletion() {
        String token = acquire(KEY, POST_LABELS);
        elapse(Duration.ofSeconds(10));
        store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION);

        elapse(RETENTION.minusSeconds(1));
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.Completed.class);
        elapse(Duration.ofSeconds(1));
        assertThat(store.lookup(KEY)).isEmpty();
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.Acquired.class);
    }

    @Test
    void completingWithAnotherTargetIsACallerBug() {
        String token = acquire(KEY, POST_LABELS);
        RequestFingerprint wrong = RequestFingerprint.of(new RequestTarget("POST", "/v1/refunds"), sha256(""));

        assertThatThrownBy(() -> store.complete(KEY, token, wrong, CREATED, RETENTION))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fingerprint");
        assertThat(store.lookup(KEY)).hasValueSatisfying(r -> assertThat(r.inFlight()).isTrue());
    }

    @Test
    void nonPositiveDurationsAreRefused() {
        assertThatThrownBy(() -> store.begin(KEY, POST_LABELS, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        String token = acquire(KEY, POST_LABELS);
        assertThatThrownBy(() -> store.complete(KEY, token, LABEL_BODY, CREATED, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention");
    }

    @Test
    void lookupShowsTheFingerprintAndAnswerOnceCompleted() {
        String token = acquire(KEY, POST_LABELS);
        store.complete(KEY, token, LABEL_BODY, CREATED, RETENTION);

        assertThat(store.lookup(KEY)).contains(new IdempotencyRecord(POST_LABELS, Optional.of(LABEL_BODY),
                Optional.of(CREATED)));
    }

    @Test
    void exactlyOneOfManyConcurrentBeginsAcquires() throws Exception {
        int threads = 8;
        for (int round = 0; round < 20; round++) {
            IdempotencyKey key = new IdempotencyKey("sk_race", "k-" + round);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Claim>> claims = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    claims.add(pool.submit(() -> {
                        start.await();
                        return store.begin(key, POST_LABELS, LEASE);
                    }));
                }
                start.countDown();
                int acquired = 0;
                for (Future<Claim> f : claims) {
                    Claim c = f.get(10, TimeUnit.SECONDS);
                    if (c instanceof Claim.Acquired) {
                        acquired++;
                    } else {
                        assertThat(c).isEqualTo(new Claim.InFlight(POST_LABELS));
                    }
                }
                assertThat(acquired).as("round %d", round).isEqualTo(1);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void asyncVariantsAgreeWithTheBlockingOnes() throws Exception {
        Claim c = store.beginAsync(KEY, POST_LABELS, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(c).isInstanceOf(Claim.Acquired.class);
        String token = ((Claim.Acquired) c).token();
        assertThat(store.beginAsync(KEY, POST_LABELS, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isEqualTo(new Claim.InFlight(POST_LABELS));
        assertThat(store.lookupAsync(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .hasValueSatisfying(r -> assertThat(r.inFlight()).isTrue());

        assertThat(store.completeAsync(KEY, token, LABEL_BODY, CREATED, RETENTION).toCompletableFuture()
                .get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(store.beginAsync(KEY, POST_LABELS, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isEqualTo(new Claim.Completed(LABEL_BODY, CREATED));

        IdempotencyKey other = new IdempotencyKey(KEY.apiKey(), "5f1c2b7e-0002");
        String second = ((Claim.Acquired) store.beginAsync(other, POST_LABELS, LEASE).toCompletableFuture()
                .get(10, TimeUnit.SECONDS)).token();
        assertThat(store.abandonAsync(other, second).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(store.lookupAsync(other).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
    }
}
