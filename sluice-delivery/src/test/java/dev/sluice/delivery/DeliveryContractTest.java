package dev.sluice.delivery;

import static dev.sluice.delivery.support.ScriptedTransport.ok;
import static dev.sluice.delivery.support.ScriptedTransport.refused;
import static dev.sluice.delivery.support.ScriptedTransport.status;
import static dev.sluice.delivery.support.ScriptedTransport.timeout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.metrics.DeliveryCounters;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.Claim;
import dev.sluice.delivery.spi.ClaimedStart;
import dev.sluice.delivery.spi.Completion;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.delivery.support.Fixtures;
import dev.sluice.delivery.support.ScriptedTransport;
import dev.sluice.delivery.webhook.StandardWebhooks;
import dev.sluice.time.ManualTimeSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The delivery worker's contract (SPEC §6), run against every store: SQLite
 * ({@code SqliteDeliveryContractTest}) and PostgreSQL ({@code PostgresDeliveryContractTest}).
 * A fake clock and a scripted transport drive {@link DeliveryWorker#runOnce()}, so nothing sleeps
 * and every time is exact.
 */
abstract class DeliveryContractTest {

    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    static final String PAYLOAD = "{\"player\":{\"id\":8472,\"email\":\"p8472@example.com\"},\"item\":991}";

    /** Opens the store under test; every call in one test reaches the same database. */
    abstract JdbcDeliveryStore openStore();

    /** A plain JDBC connection to the same database, as a user's business code would hold. */
    abstract Connection rawConnection() throws SQLException;

    /** {@code table} qualified so that {@link #rawConnection()} finds it beside the store's tables. */
    abstract String qualify(String table);

    /** Drops what the test created. */
    abstract void dropStore();

    JdbcDeliveryStore store;
    ManualTimeSource clock;
    ScriptedTransport transport;
    DeliveryCounters counters;
    Delivery delivery;
    DeliveryWorker worker;

    @BeforeEach
    void setUp() {
        store = openStore();
        clock = new ManualTimeSource(T0);
        transport = new ScriptedTransport();
        counters = new DeliveryCounters();
        delivery = build(config());
        delivery.registerDestination(Fixtures.merchant("merchant-a"));
        worker = delivery.newWorker();
    }

    DeliveryConfig.Builder config() {
        return DeliveryConfig.builder()
                .alignClockWithStore(false) // the fake clock is years away from the database's
                .concurrency(4)
                .maxAge("presence", Duration.ofMinutes(5)) // SPEC §6.5 example
                .maxAge("purchase.completed", Duration.ofDays(3)) // SPEC §6.5 example
                .redactPaths(List.of("$.player.email"));
    }

    Delivery build(DeliveryConfig.Builder config) {
        return Delivery.builder(store).config(config.build()).time(clock).random(new SplittableRandom(7))
                .transport(transport).listener(counters).build();
    }

    @AfterEach
    void tearDown() {
        delivery.close();
        store.close();
        dropStore();
    }

    EnqueueResult enqueue(String key) {
        return delivery.enqueue(NewEvent.of("merchant-a", "purchase.completed", PAYLOAD).withIdempotencyKey(key));
    }

    LedgerEntry entry(String key) {
        return delivery.entry("merchant-a", key).orElseThrow();
    }

    // ---------------------------------------------------------------------------------------------
    // outbox and ledger

    @Test
    void enqueueWritesTheEventAndAPendingLedgerRowEligibleAtOnce() {
        EnqueueResult r = enqueue("game-8472:purchase:991");

        assertThat(r.outcome()).isEqualTo(EnqueueResult.Outcome.ENQUEUED);
        LedgerEntry e = entry("game-8472:purchase:991");
        assertThat(e.state()).isEqualTo(LedgerState.PENDING);
        assertThat(e.attempts()).isZero();
        assertThat(e.eligibleAt()).isEqualTo(T0);
        assertThat(e.event().createdAt()).isEqualTo(T0);
        assertThat(e.expiresAt()).isEqualTo(T0.plus(Duration.ofDays(3))); // §6.5 purchase: 3 days
        assertThat(e.event().payload()).isEqualTo(PAYLOAD);
    }

    @Test
    void aMissingKeyIsGeneratedFromTheEventIdAndStaysStable() {
        EnqueueResult r = delivery.enqueue(NewEvent.of("merchant-a", "purchase.completed", PAYLOAD));

        assertThat(r.event().eventId()).startsWith("evt_");
        assertThat(r.event().idempotencyKey()).isEqualTo(r.event().eventId());
        transport.always(status(503));
        worker.runOnce();
        clock.advance(Duration.ofSeconds(3));
        worker.runOnce();
        assertThat(transport.requests()).extracting(q -> q.headers().first("Idempotency-Key").orElseThrow())
                .containsExactly(r.event().idempotencyKey(), r.event().idempotencyKey());
    }

    @Test
    void theSameKeyEnqueuedTwiceIsStoredOnceAndKeepsTheFirstPayload() {
        enqueue("k1");
        EnqueueResult again = delivery.enqueue(
                NewEvent.of("merchant-a", "purchase.completed", "{\"other\":1}").withIdempotencyKey("k1"));

        assertThat(again.outcome()).isEqualTo(EnqueueResult.Outcome.ALREADY_QUEUED);
        assertThat(again.event().payload()).isEqualTo(PAYLOAD);
        assertThat(delivery.status().count(LedgerState.PENDING)).isEqualTo(1);
    }

    @Test
    void anUnknownDestinationIsATypedErrorAndWritesNothing() {
        assertThatThrownBy(() -> delivery.enqueue(NewEvent.of("nobody", "t", "{}").withIdempotencyKey("k")))
                .isInstanceOf(UnknownDestinationException.class)
                .hasMessageContaining("nobody");
        assertThat(delivery.status().unfinished()).isZero();
    }

    @Test
    void aKeyWithADotIsRefusedBecauseItIsSignedAsWebhookId() {
        assertThatThrownBy(() -> enqueue("a.b"))
                .isInstanceOf(InvalidEventException.class)
                .hasMessageContaining("'.'");
    }

    @Test
    void theOutboxCommitsWithTheCallersBusinessWrite() throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + qualify("orders") + " (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO " + qualify("orders") + " (id, total) VALUES (991, 4200)");
            delivery.enqueue(c, NewEvent.of("merchant-a", "purchase.completed", PAYLOAD)
                    .withIdempotencyKey("game-8472:purchase:991"));
            c.commit();
        }
        assertThat(delivery.entry("merchant-a", "game-8472:purchase:991")).isPresent();
        assertThat(countRows(qualify("orders"))).isEqualTo(1);
    }

    @Test
    void theOutboxRollsBackWithTheCallersBusinessWrite() throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + qualify("orders") + " (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO " + qualify("orders") + " (id, total) VALUES (991, 4200)");
            delivery.enqueue(c, NewEvent.of("merchant-a", "purchase.completed", PAYLOAD)
                    .withIdempotencyKey("game-8472:purchase:991"));
            c.rollback();
        }
        assertThat(delivery.entry("merchant-a", "game-8472:purchase:991")).isEmpty();
        assertThat(countRows(qualify("orders"))).isZero();
        assertThat(worker.runOnce()).isZero();
    }

    private long countRows(String table) throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // one attempt (§6.2)

    @Test
    void anAttemptPostsTheIdempotencyKeyAndStandardWebhooksHeaders() {
        enqueue("game-8472:purchase:991");

        worker.runOnce();

        WebhookRequest q = transport.requests().get(0);
        assertThat(q.url()).hasToString("http://127.0.0.1:9/merchant-a");
        assertThat(q.body()).isEqualTo(PAYLOAD);
        assertThat(q.headers().first("Idempotency-Key")).contains("game-8472:purchase:991");
        assertThat(q.headers().first("webhook-id")).contains("game-8472:purchase:991");
        assertThat(q.headers().first("webhook-timestamp")).contains(Long.toString(T0.getEpochSecond()));
        assertThat(q.headers().first("webhook-signature")).contains(StandardWebhooks.sign(Fixtures.SECRET,
                "game-8472:purchase:991", T0.getEpochSecond(), PAYLOAD));
        assertThat(q.headers().first("Content-Type")).contains("application/json");
    }

    @Test
    void a2xxMarksTheKeyDeliveredAfterOneAttempt() {
        enqueue("k1");

        worker.runOnce();

        LedgerEntry e = entry("k1");
        assertThat(e.state()).isEqualTo(LedgerState.DELIVERED);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.lastClass()).isEqualTo(ResponseClass.SUCCESS);
        assertThat(e.lastStatus()).isEqualTo(200);
        assertThat(e.deliveredAt()).isEqualTo(T0);
        assertThat(e.leaseOwner()).isNull();
        assertThat(counters.delivered()).isEqualTo(1);
    }

    @Test
    void aDeliveredKeyEnqueuedAgainIsSuppressedWithoutATokenOrARequest() {
        enqueue("k1");
        worker.runOnce();

        EnqueueResult again = enqueue("k1");
        worker.runOnce();

        assertThat(again.outcome()).isEqualTo(EnqueueResult.Outcome.SUPPRESSED_DELIVERED);
        assertThat(transport.count()).isEqualTo(1);
        assertThat(counters.suppressed()).isEqualTo(1);
        assertThat(counters.tokensTaken()).isEqualTo(1);
    }

    @Test
    void anAttemptOnARowDeliveredMeanwhileIsSuppressed() {
        enqueue("k1");
        Claim stale = store.claim("w-stale", 1, T0, Duration.ofSeconds(30)).get(0);
        store.finish(stale, new Completion.Delivered(200, T0)); // a 2xx recorded by the same claim

        AttemptStart again = store.startAttempt(stale, T0);

        assertThat(again).isInstanceOf(AttemptStart.Suppressed.class);
    }

    @Test
    void withoutATokenTheAttemptIsRescheduledToTheNextTokenWithoutARequest() {
        delivery.registerDestination(Fixtures.merchant("slow", new Rate(1, 2), true)); // 1/s, burst 2
        for (String k : List.of("s1", "s2", "s3")) {
            delivery.enqueue(NewEvent.of("slow", "t", "{}").withIdempotencyKey(k));
        }

        worker.runOnce();

        assertThat(transport.count()).isEqualTo(2); // the burst
        LedgerEntry third = delivery.entry("slow", "s3").orElseThrow();
        assertThat(third.state()).isEqualTo(LedgerState.PENDING);
        assertThat(third.attempts()).isZero();
        assertThat(third.eligibleAt()).isEqualTo(T0.plusSeconds(1)); // the next token, 1/s
        assertThat(counters.tokensDenied()).isEqualTo(1);
        assertThat(counters.tokenWait()).isEqualTo(Duration.ofSeconds(1));

        assertThat(worker.runOnce()).isZero();
        clock.advance(Duration.ofSeconds(1));
        worker.runOnce();
        assertThat(transport.count()).isEqualTo(3);
    }

    @Test
    void aBatchOfStartsAnswersAsTheSameStartsOneByOne() {
        delivery.registerDestination(Fixtures.merchant("slow", new Rate(1, 2), true)); // 1/s, burst 2
        enqueue("a1");
        Claim stale = store.claim("w-batch", 1, T0, Duration.ofSeconds(1)).get(0);
        store.claim("w-other", 1, T0.plusSeconds(2), Duration.ofSeconds(30)); // a1's lease lapsed: taken over
        clock.advance(Duration.ofSeconds(2));
        Instant now = T0.plusSeconds(2);
        for (String k : List.of("s1", "s2", "s3", "s4")) {
            delivery.enqueue(NewEvent.of("slow", "t", "{}").withIdempotencyKey(k));
        }
        List<Claim> claims = new java.util.ArrayList<>(List.of(stale));
        claims.addAll(store.claim("w-batch", 10, now, Duration.ofSeconds(30)));

        List<AttemptStart> starts = store.startAttempts(claims, now);

        assertThat(claims).extracting(c -> c.event().idempotencyKey()).containsExactly("a1", "s1", "s2", "s3", "s4");
        assertThat(starts.get(0)).isInstanceOf(AttemptStart.LeaseLost.class);
        assertThat(starts.subList(1, 3)).allSatisfy(st -> assertThat(st).isInstanceOf(AttemptStart.Proceed.class));
        // both wait for the next token, as they would one by one
        assertThat(starts.subList(3, 5)).containsOnly(new AttemptStart.NoToken(Duration.ofSeconds(1), now.plusSeconds(1)));
        assertThat(delivery.entry("slow", "s4").orElseThrow().state()).isEqualTo(LedgerState.PENDING);
        assertThat(delivery.entry("slow", "s4").orElseThrow().eligibleAt()).isEqualTo(now.plusSeconds(1));
        assertThat(entry("a1").leaseOwner()).isEqualTo("w-other");
    }

    @Test
    void aClaimAndStartStartsTheAcceptedClaimsAndOnlyClaimsTheRest() {
        delivery.registerDestination(Fixtures.merchant("slow", new Rate(1, 2), true)); // 1/s, burst 2
        for (String k : List.of("s1", "s2", "s3", "s4")) {
            delivery.enqueue(NewEvent.of("slow", "t", "{}").withIdempotencyKey(k));
        }

        List<ClaimedStart> batch = store.claimAndStart("w-batch", 10, T0, Duration.ofSeconds(30),
                c -> !c.event().idempotencyKey().equals("s2"));

        assertThat(batch).extracting(b -> b.claim().event().idempotencyKey()).containsExactly("s1", "s2", "s3", "s4");
        assertThat(batch.get(0).start()).containsInstanceOf(AttemptStart.Proceed.class);
        assertThat(batch.get(1).start()).isEmpty(); // claimed, no token taken: the caller settles it
        assertThat(batch.get(2).start()).containsInstanceOf(AttemptStart.Proceed.class);
        assertThat(batch.get(3).start()).contains(new AttemptStart.NoToken(Duration.ofSeconds(1), T0.plusSeconds(1)));
        LedgerEntry s2 = delivery.entry("slow", "s2").orElseThrow();
        assertThat(s2.state()).isEqualTo(LedgerState.IN_FLIGHT);
        assertThat(s2.leaseOwner()).isEqualTo("w-batch");
        assertThat(delivery.entry("slow", "s4").orElseThrow().state()).isEqualTo(LedgerState.PENDING);
        assertThat(store.release("w-batch", T0)).isEqualTo(1); // only s2 was not sending
    }

    @Test
    void aClaimAndStartByTheRuleTakesTheTokensOfTheBatchInClaimOrder() {
        delivery.registerDestination(Fixtures.merchant("slow", new Rate(1, 2), true)); // 1/s, burst 2
        for (String k : List.of("s1", "s2", "s3", "s4")) {
            delivery.enqueue(NewEvent.of("slow", "t", "{}").withIdempotencyKey(k));
        }

        List<ClaimedStart> batch = store.claimAndStart("w-batch", 10, T0, Duration.ofSeconds(30));

        assertThat(batch).extracting(b -> b.claim().event().idempotencyKey()).containsExactly("s1", "s2", "s3", "s4");
        assertThat(batch.subList(0, 2)).allSatisfy(b -> assertThat(b.start()).containsInstanceOf(AttemptStart.Proceed.class));
        // burst 2: the next token is 1 s away for both of the rest, as one by one
        assertThat(batch.subList(2, 4)).allSatisfy(b -> assertThat(b.start())
                .contains(new AttemptStart.NoToken(Duration.ofSeconds(1), T0.plusSeconds(1))));
        LedgerEntry s1 = delivery.entry("slow", "s1").orElseThrow();
        assertThat(s1.state()).isEqualTo(LedgerState.IN_FLIGHT);
        assertThat(s1.leaseOwner()).isEqualTo("w-batch");
        assertThat(s1.leaseExpiresAt()).isEqualTo(T0.plusSeconds(30));
        LedgerEntry s4 = delivery.entry("slow", "s4").orElseThrow();
        assertThat(s4.state()).isEqualTo(LedgerState.PENDING);
        assertThat(s4.eligibleAt()).isEqualTo(T0.plusSeconds(1));
        assertThat(s4.leaseOwner()).isNull();
        assertThat(store.release("w-batch", T0)).isZero(); // both claims are sending
    }

    @Test
    void aClaimAndStartByTheRuleLeavesExpiredAndInterruptedRowsUnstarted() {
        delivery.registerDestination(Fixtures.merchant("once", new Rate(100, 100), false)); // cannot deduplicate
        delivery.enqueue(NewEvent.of("once", "t", "{}").withIdempotencyKey("i1"));
        List<ClaimedStart> first = store.claimAndStart("w-dead", 1, T0, Duration.ofSeconds(1));
        assertThat(first.get(0).start()).containsInstanceOf(AttemptStart.Proceed.class); // then the worker dies
        delivery.enqueue(NewEvent.of("merchant-a", "presence", "{}").withIdempotencyKey("p1")); // §6.5: 5 min
        delivery.enqueue(NewEvent.of("merchant-a", "purchase.completed", "{}").withIdempotencyKey("f1")); // 3 days
        Instant later = T0.plus(Duration.ofMinutes(6));

        List<ClaimedStart> batch = store.claimAndStart("w-next", 10, later, Duration.ofSeconds(30));

        assertThat(batch).hasSize(3);
        java.util.Map<String, ClaimedStart> byKey = new java.util.HashMap<>();
        batch.forEach(b -> byKey.put(b.claim().event().idempotencyKey(), b));
        assertThat(byKey.get("i1").claim().interruptedAttempt()).isTrue();
        assertThat(byKey.get("i1").start()).isEmpty(); // review is the caller's (§6.2)
        assertThat(byKey.get("p1").start()).isEmpty(); // expired: dead letter is the caller's (§6.5)
        assertThat(byKey.get("f1").start()).containsInstanceOf(AttemptStart.Proceed.class);
        assertThat(byKey.values()).allSatisfy(b -> assertThat(b.claim().leaseToken()).isNotNull());
        assertThat(delivery.entry("once", "i1").orElseThrow().leaseOwner()).isEqualTo("w-next");
        assertThat(store.release("w-next", later)).isEqualTo(2); // i1 and p1 were claimed, not sending
    }

    @Test
    void aStartedClaimPutBackIsDueAgainAndNotAnInterruptedAttempt() {
        enqueue("k1");
        Claim started = store.claimAndStart("w-ahead", 1, T0, Duration.ofSeconds(30)).get(0).claim();

        assertThat(store.putBack(List.of(started), T0)).isEqualTo(1);

        LedgerEntry e = entry("k1");
        assertThat(e.state()).isEqualTo(LedgerState.PENDING);
        assertThat(e.leaseOwner()).isNull();
        assertThat(e.attempts()).isZero();
        Claim next = store.claim("w-next", 1, T0, Duration.ofSeconds(30)).get(0);
        assertThat(next.event().idempotencyKey()).isEqualTo("k1");
        assertThat(next.interruptedAttempt()).isFalse();
        assertThat(store.putBack(List.of(started), T0)).isZero(); // the lease is w-next's now
        assertThat(entry("k1").leaseOwner()).isEqualTo("w-next");
    }

    @Test
    void aWorkerClaimsAheadOnlyWhenItsLeaseOutlivesTheWait() {
        // a row waiting for a thread starts within one request timeout; a third covers its commit
        assertThat(DeliveryWorker.claimAhead(DeliveryConfig.builder().concurrency(8).build())).isEqualTo(8); // 30 s vs 3 s
        assertThat(DeliveryWorker.claimAhead(DeliveryConfig.builder().concurrency(8)
                .lease(Duration.ofSeconds(9)).requestTimeout(Duration.ofSeconds(3)).build())).isEqualTo(8);
        assertThat(DeliveryWorker.claimAhead(DeliveryConfig.builder().concurrency(8)
                .lease(Duration.ofSeconds(8)).requestTimeout(Duration.ofSeconds(3)).build())).isZero();
    }

    @Test
    void theBucketIsSharedByEveryWorkerOnTheStore() {
        delivery.registerDestination(Fixtures.merchant("one-a-second", new Rate(1, 1), true));
        delivery.enqueue(NewEvent.of("one-a-second", "t", "{}").withIdempotencyKey("x1"));
        delivery.enqueue(NewEvent.of("one-a-second", "t", "{}").withIdempotencyKey("x2"));
        try (Delivery one = build(config().concurrency(1)); Delivery other = build(config().concurrency(1))) {
            DeliveryWorker a = one.newWorker();
            DeliveryWorker b = other.newWorker();

            a.runOnce();
            b.runOnce();

            assertThat(transport.count()).isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // retry (§6.3)

    @Test
    void a503WithoutRetryAfterWaitsTwoToTheAttemptSecondsPlusJitter() {
        transport.always(status(503));
        enqueue("k1");

        worker.runOnce();

        LedgerEntry e = entry("k1");
        assertThat(e.state()).isEqualTo(LedgerState.PENDING);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.lastClass()).isEqualTo(ResponseClass.OVERLOADED);
        assertThat(e.lastStatus()).isEqualTo(503);
        // §6.3: min(900, 2^min(1, 9)) = 2 s, + U(0, 0.5) s
        assertThat(e.eligibleAt()).isBetween(T0.plusSeconds(2), T0.plusMillis(2_500));
        clock.setNow(e.eligibleAt().minusMillis(1));
        assertThat(worker.runOnce()).isZero();
        clock.setNow(e.eligibleAt());
        assertThat(worker.runOnce()).isEqualTo(1);
        assertThat(transport.requestsFor("k1")).isEqualTo(2);
    }

    @Test
    void aRetryAfterInSecondsIsHonouredNeverUndercut() {
        transport.answer((k, n) -> n == 1 ? status(429, "Retry-After", "7") : ok());
        enqueue("k1");

        worker.runOnce();

        LedgerEntry e = entry("k1");
        assertThat(e.lastClass()).isEqualTo(ResponseClass.RATE_LIMITED);
        assertThat(e.eligibleAt()).isBetween(T0.plusSeconds(7), T0.plusMillis(7_500));
        clock.advance(Duration.ofMillis(6_999));
        assertThat(worker.runOnce()).isZero();
    }

    @Test
    void aRetryAfterAsAnHttpDateCountsFromTheResponsesOwnDate() {
        // the receiver's clock is 1 h behind ours; its Date and Retry-After agree on a 30 s wait
        transport.answer((k, n) -> n == 1 ? status(503, "Date", "Sun, 01 Mar 2026 11:00:00 GMT",
                "Retry-After", "Sun, 01 Mar 2026 11:00:30 GMT") : ok());
        enqueue("k1");

        worker.runOnce();

        assertThat(entry("k1").eligibleAt()).isBetween(T0.plusSeconds(30), T0.plusMillis(30_500));
    }

    @Test
    void r01NegativeRetryAfterIsInvalidAndTheBackoffApplies() {
        transport.answer((k, n) -> n == 1 ? status(429, "Retry-After", "-1") : ok());
        enqueue("k1");

        worker.runOnce();

        // R01: -1 is malformed, never a negative wait: the §6.3 backoff for attempt 1 (2 s) applies
        assertThat(entry("k1").eligibleAt()).isBetween(T0.plusSeconds(2), T0.plusMillis(2_500));
    }

    @Test
    void r03AHugeRetryAfterIsAbsurdSoTheBackoffAppliesWithoutOverflowing() {
        transport.always(status(429, "Retry-After", "99999999999999999999"));
        enqueue("k1");

        worker.runOnce();

        // R03: saturates (no exception); far beyond max-retry-after (24 h), so it is treated as
        // invalid (SPEC §6.3 "absurd rejected") and the backoff for attempt 1 (2 s) applies
        LedgerEntry e = entry("k1");
        assertThat(e.state()).isEqualTo(LedgerState.PENDING);
        assertThat(e.eligibleAt()).isBetween(T0.plusSeconds(2), T0.plusMillis(2_500));
        assertThat(e.lastError()).contains("beyond max-retry-after 24h: ignored, backoff applied");
    }

    @Test
    void aYearLongRetryAfterIsIgnoredAndTheEventIsDeliveredOnTheBackoffSchedule() {
        transport.answer((k, n) -> n == 1 ? status(429, "Retry-After", "31536000") : ok());
        enqueue("k1");

        worker.runOnce();
        clock.setNow(entry("k1").eligibleAt());
        worker.runOnce();

        assertThat(entry("k1").state()).isEqualTo(LedgerState.DELIVERED);
        assertThat(transport.requestsFor("k1")).isEqualTo(2);
    }

    @Test
    void anAcceptedRetryAfterEndingAfterTheMaximumAgeDeadLettersWithItsOwnReason() {
        // presence events live 5 min (setUp); a 10 min hint is valid (< 24 h) but cannot be honoured in time
        transport.always(status(429, "Retry-After", "600"));
        delivery.enqueue(NewEvent.of("merchant-a", "presence", "{}").withIdempotencyKey("k1"));

        worker.runOnce();

        assertThat(entry("k1").state()).isEqualTo(LedgerState.DEAD);
        assertThat(delivery.deadLetters(10)).singleElement().satisfies(d -> {
            assertThat(d.reason()).isEqualTo(DeadLetterReason.RETRY_AFTER_BEYOND_MAX_AGE);
            assertThat(d.finalStatus()).isEqualTo(429);
            assertThat(d.lastError()).contains("Retry-After ends after the maximum age");
        });
    }

    @Test
    void aTerminalStatusDeadLettersWithReasonClassAttemptsErrorAndARedactedCopy() {
        transport.always(status(422));
        enqueue("game-8472:purchase:991");

        worker.runOnce();

        assertThat(entry("game-8472:purchase:991").state()).isEqualTo(LedgerState.DEAD);
        DeadLetter d = delivery.deadLetters(10).get(0);
        assertThat(d.reason()).isEqualTo(DeadLetterReason.TERMINAL_RESPONSE);
        assertThat(d.finalClass()).isEqualTo(ResponseClass.CLIENT_ERROR);
        assertThat(d.finalStatus()).isEqualTo(422);
        assertThat(d.attempts()).isEqualTo(1);
        assertThat(d.lastError()).isEqualTo("HTTP 422");
        assertThat(d.idempotencyKey()).isEqualTo("game-8472:purchase:991");
        assertThat(d.destination()).isEqualTo("merchant-a");
        assertThat(d.redactedPayload())
                .isEqualTo("{\"player\":{\"id\":8472,\"email\":\"[redacted]\"},\"item\":991}");
        assertThat(counters.deadLetters(DeadLetterReason.TERMINAL_RESPONSE)).isEqualTo(1);
    }

    @Test
    void a410DeadLettersAndDisablesTheDestinationSoLaterEventsSendNothing() {
        transport.always(status(410));
        enqueue("k1");
        worker.runOnce();

        enqueue("k2");
        worker.runOnce();

        assertThat(transport.count()).isEqualTo(1);
        assertThat(delivery.destinations()).filteredOn(s -> s.destination().name().equals("merchant-a"))
                .singleElement().satisfies(s -> {
                    assertThat(s.enabled()).isFalse();
                    assertThat(s.disabledReason()).contains("410");
                });
        assertThat(delivery.deadLetters(10)).extracting(DeadLetter::reason)
                .containsExactly(DeadLetterReason.DESTINATION_DISABLED, DeadLetterReason.DESTINATION_GONE);
    }

    @Test
    void reEnablingADestinationLetsItsDeadLettersBeReplayed() {
        transport.answer((k, n) -> n == 1 ? status(410) : ok());
        enqueue("k1");
        worker.runOnce();
        long dl = delivery.deadLetters(1).get(0).id();

        assertThatThrownBy(() -> delivery.replay(dl)).isInstanceOf(ReplayRefusedException.class)
                .extracting(x -> ((ReplayRefusedException) x).reason())
                .isEqualTo(ReplayRefusedException.Reason.DESTINATION_DISABLED);
        assertThat(delivery.enableDestination("merchant-a")).isTrue();
        delivery.replay(dl);
        worker.runOnce();

        assertThat(entry("k1").state()).isEqualTo(LedgerState.DELIVERED);
    }

    // ---------------------------------------------------------------------------------------------
    // maximum age (§6.5)

    @Test
    void anEventOlderThanItsTypesMaximumAgeIsDeadLetteredExpiredWithoutARequest() {
        delivery.enqueue(NewEvent.of("merchant-a", "presence", "{}").withIdempotencyKey("p1"));

        clock.advance(Duration.ofMinutes(6)); // presence: 5 min (§6.5)
        worker.runOnce();

        assertThat(transport.count()).isZero();
        DeadLetter d = delivery.deadLetters(1).get(0);
        assertThat(d.reason()).isEqualTo(DeadLetterReason.EXPIRED);
        assertThat(d.attempts()).isZero();
        assertThat(d.finalClass()).isNull();
    }

    @Test
    void aRetryThatWouldLandAfterTheMaximumAgeDeadLettersNow() {
        try (Delivery shortLived = build(config().maxAge("presence", Duration.ofSeconds(5)))) {
            DeliveryWorker w = shortLived.newWorker();
            transport.always(status(503));
            shortLived.enqueue(NewEvent.of("merchant-a", "presence", "{}").withIdempotencyKey("p1"));

            w.runOnce(); // attempt 1 at 0 s: retry in 2..2.5 s, inside 5 s
            clock.advance(Duration.ofMillis(2_500));
            w.runOnce(); // attempt 2 at 2.5 s: retry in 4..4.5 s would pass 5 s

            DeadLetter d = shortLived.deadLetters(1).get(0);
            assertThat(d.reason()).isEqualTo(DeadLetterReason.EXPIRED);
            assertThat(d.attempts()).isEqualTo(2);
            assertThat(d.finalClass()).isEqualTo(ResponseClass.OVERLOADED);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // leases (§6.4, §6.7)

    @Test
    void aClaimedRowIsNotClaimedAgainWhileItsLeaseHolds() {
        enqueue("k1");
        Duration lease = Duration.ofSeconds(30);

        List<Claim> first = store.claim("w-a", 10, T0, lease);
        List<Claim> second = store.claim("w-b", 10, T0.plusSeconds(29), lease);

        assertThat(first).hasSize(1);
        assertThat(second).isEmpty();
    }

    @Test
    void aHeartbeatKeepsASlowAttemptFromBeingClaimedTwice() {
        enqueue("k1");
        Duration lease = Duration.ofSeconds(30);
        store.claim("w-a", 10, T0, lease);

        store.heartbeat("w-a", T0.plusSeconds(20).plus(lease)); // beat at 20 s
        List<Claim> atForty = store.claim("w-b", 10, T0.plusSeconds(40), lease);

        assertThat(atForty).isEmpty();
    }

    @Test
    void aCrashedWorkersLeaseLapsesAndTheEventIsRetriedWithTheSameKey() {
        enqueue("game-8472:purchase:991");
        Claim crashed = store.claim("w-crashed", 10, T0, Duration.ofSeconds(30)).get(0);
        assertThat(store.startAttempt(crashed, T0)).isInstanceOf(AttemptStart.Proceed.class);
        // ... and the process dies here, before any outcome is recorded

        clock.advance(Duration.ofSeconds(31));
        worker.runOnce();

        assertThat(transport.requests()).singleElement()
                .satisfies(q -> assertThat(q.headers().first("Idempotency-Key")).contains("game-8472:purchase:991"));
        assertThat(entry("game-8472:purchase:991").state()).isEqualTo(LedgerState.DELIVERED);
    }

    @Test
    void aWorkerWhoseLeaseLapsedCannotOverwriteTheNextHoldersOutcome() {
        enqueue("k1");
        Duration lease = Duration.ofSeconds(30);
        Claim late = store.claim("w-a", 1, T0, lease).get(0);
        Claim current = store.claim("w-b", 1, T0.plusSeconds(31), lease).get(0);

        boolean lateRetry = store.finish(late, new Completion.Retry(ResponseClass.OVERLOADED, 503, "HTTP 503",
                T0.plusSeconds(60), T0.plusSeconds(32), true));

        assertThat(lateRetry).isFalse();
        assertThat(entry("k1").leaseOwner()).isEqualTo("w-b");
        assertThat(store.startAttempt(late, T0.plusSeconds(32))).isInstanceOf(AttemptStart.LeaseLost.class);
        assertThat(store.startAttempt(current, T0.plusSeconds(32))).isInstanceOf(AttemptStart.Proceed.class);
    }

    @Test
    void aLateSuccessIsStillRecordedBecauseADeliveryIsAFact() {
        enqueue("k1");
        Duration lease = Duration.ofSeconds(30);
        Claim late = store.claim("w-a", 1, T0, lease).get(0);
        Claim current = store.claim("w-b", 1, T0.plusSeconds(31), lease).get(0);

        assertThat(store.finish(late, new Completion.Delivered(200, T0.plusSeconds(32)))).isTrue();
        boolean currentRetry = store.finish(current, new Completion.Retry(ResponseClass.OVERLOADED, 503, "HTTP 503",
                T0.plusSeconds(60), T0.plusSeconds(33), true));

        assertThat(currentRetry).isFalse();
        assertThat(entry("k1").state()).isEqualTo(LedgerState.DELIVERED);
    }

    @Test
    void closingAWorkerPutsBackRowsItClaimedButHadNotStarted() {
        enqueue("k1");
        enqueue("k2");
        List<Claim> claims = store.claim("w-a", 2, T0, Duration.ofSeconds(30));
        store.startAttempt(claims.get(0), T0);

        int released = store.release("w-a", T0);

        assertThat(released).isEqualTo(1);
        assertThat(delivery.status().count(LedgerState.PENDING)).isEqualTo(1);
        assertThat(delivery.status().count(LedgerState.IN_FLIGHT)).isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------------
    // destinations without idempotency: review

    @Test
    void anAmbiguousOutcomeToANonIdempotentDestinationGoesToReviewNotToARetry() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        transport.always(timeout());
        delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c1"));

        worker.runOnce();
        clock.advance(Duration.ofMinutes(20));
        worker.runOnce();

        assertThat(transport.count()).isEqualTo(1);
        assertThat(delivery.reviews(10)).singleElement().satisfies(e -> {
            assertThat(e.event().idempotencyKey()).isEqualTo("c1");
            assertThat(e.lastClass()).isEqualTo(ResponseClass.TIMEOUT);
        });
        assertThat(counters.reviews()).isEqualTo(1);
    }

    @Test
    void aConnectionNeverMadeIsRetriedEvenToANonIdempotentDestination() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        transport.answer((k, n) -> n == 1 ? refused() : ok());
        delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c1"));

        worker.runOnce();
        clock.advance(Duration.ofSeconds(3));
        worker.runOnce();

        assertThat(delivery.entry("legacy", "c1").orElseThrow().state()).isEqualTo(LedgerState.DELIVERED);
    }

    @Test
    void aTimeoutToAnIdempotentDestinationIsRetriedWithTheSameKey() {
        transport.answer((k, n) -> n == 1 ? timeout() : ok());
        enqueue("k1");

        worker.runOnce();
        clock.advance(Duration.ofSeconds(3));
        worker.runOnce();

        assertThat(transport.requestsFor("k1")).isEqualTo(2);
        assertThat(entry("k1").state()).isEqualTo(LedgerState.DELIVERED);
    }

    @Test
    void anInterruptedAttemptToANonIdempotentDestinationGoesToReviewWithoutARequest() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c1"));
        Claim crashed = store.claim("w-crashed", 1, T0, Duration.ofSeconds(30)).get(0);
        store.startAttempt(crashed, T0); // token taken, request maybe sent, then the crash

        clock.advance(Duration.ofSeconds(31));
        worker.runOnce();

        assertThat(transport.count()).isZero();
        assertThat(delivery.entry("legacy", "c1").orElseThrow().state()).isEqualTo(LedgerState.REVIEW);
    }

    @Test
    void anInterruptedAttemptPastItsMaximumAgeStillGoesToReviewNotToExpiry() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        delivery.enqueue(NewEvent.of("legacy", "presence", "{}").withIdempotencyKey("c1"));
        Claim crashed = store.claim("w-crashed", 1, T0, Duration.ofSeconds(30)).get(0);
        store.startAttempt(crashed, T0);

        clock.advance(Duration.ofMinutes(6)); // presence: 5 min (§6.5)
        worker.runOnce();

        assertThat(delivery.entry("legacy", "c1").orElseThrow().state()).isEqualTo(LedgerState.REVIEW);
        assertThat(delivery.deadLetters(10)).isEmpty();
    }

    @Test
    void reviewResolvedAsRetrySendsAgainWithTheSameKey() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        transport.answer((k, n) -> n == 1 ? timeout() : ok());
        long id = delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c1")).ledgerId();
        worker.runOnce();

        delivery.resolveReview(id, ReviewResolution.RETRY);
        worker.runOnce();

        assertThat(transport.requestsFor("c1")).isEqualTo(2);
        assertThat(delivery.entry(id).orElseThrow().state()).isEqualTo(LedgerState.DELIVERED);
    }

    @Test
    void reviewResolvedAsDeliveredOrDeadSendsNothingMore() {
        delivery.registerDestination(Fixtures.merchant("legacy", new Rate(100, 100), false));
        transport.always(timeout());
        long a = delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c1")).ledgerId();
        long b = delivery.enqueue(NewEvent.of("legacy", "charge", "{}").withIdempotencyKey("c2")).ledgerId();
        worker.runOnce();

        assertThat(delivery.resolveReview(a, ReviewResolution.DELIVERED).state()).isEqualTo(LedgerState.DELIVERED);
        assertThat(delivery.resolveReview(b, ReviewResolution.DEAD).state()).isEqualTo(LedgerState.DEAD);
        worker.runOnce();

        assertThat(transport.count()).isEqualTo(2);
        assertThat(delivery.deadLetters(10)).singleElement()
                .satisfies(d -> assertThat(d.reason()).isEqualTo(DeadLetterReason.REVIEW_ABANDONED));
        assertThatThrownBy(() -> delivery.resolveReview(a, ReviewResolution.RETRY))
                .isInstanceOf(ReplayRefusedException.class)
                .extracting(x -> ((ReplayRefusedException) x).reason())
                .isEqualTo(ReplayRefusedException.Reason.WRONG_STATE);
    }

    // ---------------------------------------------------------------------------------------------
    // dead letters and replay (§6.6)

    @Test
    void replayReEnqueuesWithTheOriginalKeyAndRefusesOnceDelivered() {
        transport.answer((k, n) -> n == 1 ? status(400) : ok());
        enqueue("game-8472:purchase:991");
        worker.runOnce();
        long dl = delivery.deadLetters(1).get(0).id();

        LedgerEntry replayed = delivery.replay(dl);
        assertThat(replayed.state()).isEqualTo(LedgerState.PENDING);
        assertThat(replayed.attempts()).isZero();
        assertThatThrownBy(() -> delivery.replay(dl)).isInstanceOf(ReplayRefusedException.class)
                .extracting(x -> ((ReplayRefusedException) x).reason())
                .isEqualTo(ReplayRefusedException.Reason.ALREADY_QUEUED);
        worker.runOnce();

        assertThat(transport.requests()).extracting(q -> q.headers().first("Idempotency-Key").orElseThrow())
                .containsExactly("game-8472:purchase:991", "game-8472:purchase:991");
        assertThat(entry("game-8472:purchase:991").state()).isEqualTo(LedgerState.DELIVERED);
        assertThat(delivery.deadLetter(dl).orElseThrow().replayCount()).isEqualTo(1);
        assertThatThrownBy(() -> delivery.replay(dl)).isInstanceOf(ReplayRefusedException.class)
                .extracting(x -> ((ReplayRefusedException) x).reason())
                .isEqualTo(ReplayRefusedException.Reason.ALREADY_DELIVERED);
    }

    @Test
    void replayingAnUnknownDeadLetterIsATypedError() {
        assertThatThrownBy(() -> delivery.replay(424242)).isInstanceOf(NoSuchEntryException.class);
    }

    @Test
    void r22OneEventFailingForTwoDestinationsGivesTwoDeadLettersThatReplayWithTheOriginalKey() {
        delivery.registerDestination(Fixtures.merchant("h1"));
        delivery.registerDestination(Fixtures.merchant("h2"));
        boolean[] healed = {false};
        transport.answer((k, n) -> healed[0] ? ok() : status(400));
        NewEvent e1 = NewEvent.of("h1", "purchase.completed", PAYLOAD).withEventId("e1");
        delivery.enqueue(e1);
        delivery.enqueue(e1.toDestination("h2"));
        worker.runOnce();

        List<DeadLetter> dls = delivery.deadLetters(10);
        assertThat(dls).hasSize(2);
        assertThat(dls).extracting(DeadLetter::id).doesNotHaveDuplicates();
        assertThat(dls).extracting(DeadLetter::eventId).containsOnly("e1");
        assertThat(dls).extracting(DeadLetter::idempotencyKey).containsOnly("e1");
        assertThat(dls).extracting(DeadLetter::destination).containsExactlyInAnyOrder("h1", "h2");

        healed[0] = true;
        for (DeadLetter d : dls) {
            delivery.replay(d.id());
        }
        worker.runOnce();
        for (DeadLetter d : dls) { // replaying the same row twice: refused, so one side effect
            assertThatThrownBy(() -> delivery.replay(d.id())).isInstanceOf(ReplayRefusedException.class);
        }
        worker.runOnce();

        for (String h : List.of("h1", "h2")) {
            List<WebhookRequest> toH = transport.requests().stream()
                    .filter(q -> q.url().getPath().equals("/" + h)).toList();
            assertThat(toH).hasSize(2); // the failure, then exactly one replay
            assertThat(toH).allSatisfy(q -> {
                assertThat(q.headers().first("Idempotency-Key")).contains("e1");
                assertThat(q.headers().first("webhook-id")).contains("e1");
            });
        }
    }

    // ---------------------------------------------------------------------------------------------
    // status and schema

    @Test
    void statusCountsStatesAndDeadLettersByReason() {
        transport.answer((k, n) -> switch (k) {
            case "ok" -> ok();
            case "bad" -> status(400);
            default -> status(503);
        });
        enqueue("ok");
        enqueue("bad");
        enqueue("later");
        worker.runOnce();

        DeliveryStatus s = delivery.status();

        assertThat(s.count(LedgerState.DELIVERED)).isEqualTo(1);
        assertThat(s.count(LedgerState.DEAD)).isEqualTo(1);
        assertThat(s.count(LedgerState.PENDING)).isEqualTo(1);
        assertThat(s.dueNow()).isZero();
        assertThat(s.nextEligibleAt()).isAfter(T0);
        assertThat(s.deadLettersByReason()).containsEntry(DeadLetterReason.TERMINAL_RESPONSE, 1L);
    }

    @Test
    void reopeningTheStoreKeepsItsDataAndAppliesNoMigrationTwice() throws SQLException {
        enqueue("k1");

        try (JdbcDeliveryStore again = openStore()) {
            assertThat(again.entry("merchant-a", "k1")).isPresent();
        }
        try (Connection c = rawConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT COUNT(*), MAX(version) FROM " + qualify("sluice_schema_version"));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
            assertThat(rs.getInt(2)).isEqualTo(1);
        }
    }
}
