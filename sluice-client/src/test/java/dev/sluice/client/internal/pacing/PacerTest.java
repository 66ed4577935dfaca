package dev.sluice.client.internal.pacing;

import static dev.sluice.client.Snapshots.burst;
import static dev.sluice.client.Snapshots.quota;
import static dev.sluice.client.Snapshots.unknown;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.PacerConfig;
import dev.sluice.client.Snapshots;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PacerTest {

    private static final long SECOND = 1_000_000_000L;
    private static final Instant WALL = Instant.parse("2026-11-30T18:00:00Z");

    private static Pacer pacer(PacerConfig config) {
        return new Pacer(config, InMemoryTokenBucket.unlimited(0), Duration.ofSeconds(1), 0);
    }

    @Test
    void documentedLimitIsPacedAtNinetyPercent() {
        Pacer p = pacer(PacerConfig.documented(60, 10));
        assertThat(p.effectivePerSecond(0)).isCloseTo(54.0, within(1e-9)); // 0.9 × 60 (SPEC §4.6)
        assertThat(p.capacity()).as("the largest cost: the API's burst").isEqualTo(10.0);
        assertThat(p.pacedCapacity()).as("the bucket: 90 % of the burst too").isCloseTo(9.0, within(1e-9));
    }

    @Test
    void followsTheBurstPolicyOfTheHeadersAtNinetyPercent() {
        // SPEC §2.1 example: "burst";q=20;w=2 -> 10/s documented -> 9/s paced, bucket 20
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(burst("burst", 20, 2, 7, Duration.ofSeconds(2)),
                quota("daily", 10_000, 86_400, 2310, Duration.ofSeconds(21_600))), 0, WALL);
        assertThat(p.effectivePerSecond(0)).isCloseTo(9.0, within(1e-9));
        assertThat(p.capacity()).isEqualTo(20.0);
        assertThat(p.pacedCapacity()).isCloseTo(18.0, within(1e-9));
        assertThat(p.available(0)).as("never more than the server's r").isEqualTo(7.0);
    }

    @Test
    void aCachedResponseIsIgnoredForPacing() {
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.cached(Snapshots.ok(burst("burst", 20, 2, 0, Duration.ofSeconds(2)))), 0, WALL);
        assertThat(p.effectivePerSecond(0)).isInfinite(); // SPEC §2.5
        assertThat(p.tryAcquire(1, 0)).isZero();
    }

    @Test
    void whenRemainingFallsBelowTenPercentTheFirstGoesAtOnceAndTheRestAreSpreadOverTheReset() {
        Pacer p = pacer(PacerConfig.defaults());
        // daily: 900 of 10,000 left, 6 h to the reset -> 900 / 21,600 s, the first of them at once (SPEC §4.6)
        p.observe(Snapshots.ok(quota("daily", 10_000, 86_400, 900, Duration.ofSeconds(21_600))), 0, WALL);
        assertThat(p.rationedBy(0)).as("not before the first of the 900 is taken").isNull();
        assertThat(p.tryAcquire(1, 0)).isZero();
        assertThat(p.effectivePerSecond(0)).isCloseTo(900.0 / 21_600, within(1e-12));
        assertThat(p.tryAcquire(1, 0)).as("the next one: t / r = 24 s later").isEqualTo(24 * SECOND);
        assertThat(p.rationedBy(0).policy()).isEqualTo("daily");
        assertThat(p.rationedBy(0).resetAt()).isEqualTo(WALL.plusSeconds(21_600));
        // at 10 % or more nothing is spread
        p.observe(Snapshots.ok(quota("daily", 10_000, 86_400, 1000, Duration.ofSeconds(21_600))), 0, WALL);
        assertThat(p.effectivePerSecond(0)).isInfinite();
    }

    @Test
    void theLastUnitOfAQuotaIsSentAtOnceEvenFromAFullBucket() {
        // a daily quota of 12 with 1 left and the Free burst (20 per 2 s): the unit goes now, not in
        // t / r = 13,962 s; with tokens in the bucket it is the only one that goes before the reset
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(burst("burst", 20, 2, 19, Duration.ofSeconds(1)),
                quota("daily", 12, 86_400, 1, Duration.ofSeconds(13_962))), 0, WALL);
        assertThat(p.tryAcquire(1, 0)).isZero();
        assertThat(p.tryAcquire(1, 0)).as("the spread holds the bucket now, whatever it held")
                .isGreaterThan(60 * SECOND);
    }

    @Test
    void aSpreadEndsAtTheReset() {
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(quota("daily", 10_000, 86_400, 10, Duration.ofSeconds(100))), 0, WALL);
        assertThat(p.tryAcquire(1, 0)).isZero();
        assertThat(p.effectivePerSecond(0)).isCloseTo(0.1, within(1e-12));
        p.refresh(100 * SECOND);
        assertThat(p.effectivePerSecond(100 * SECOND)).isInfinite();
    }

    @Test
    void resetEqualToTheServerDateStillWaitsTheOneSecondMarginR04() {
        // R04 scenario 1: x-ratelimit-remaining 0, reset == Date -> resetIn 0 -> wait 1 s, not 0
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(Snapshots.absoluteReset(unknown("core", 5000L, null, 0, Duration.ZERO))), 0, WALL);
        assertThat(p.tryAcquire(1, 0)).isEqualTo(SECOND);
    }

    @Test
    void resetThirtySecondsAfterTheServerDateWaitsThirtyOneWhateverTheLocalSkewR04() {
        // R04 scenario 2: Date T, reset T+30 (the dialect gives resetIn 30 s relative to Date); the
        // local wall clock is 5 s ahead and is not consulted: the wait runs on the monotonic clock
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(Snapshots.absoluteReset(unknown("core", 5000L, null, 0, Duration.ofSeconds(30)))), 0,
                WALL.plusSeconds(5));
        assertThat(p.tryAcquire(1, 0)).isEqualTo(31 * SECOND);
        assertThat(p.block(0).kind()).isEqualTo(PolicyKind.UNKNOWN);
    }

    @Test
    void theMostRestrictivePolicyWinsR06() {
        Pacer p = pacer(PacerConfig.defaults().withPaceFraction(1.0));
        p.observe(Snapshots.ok(burst("a", 100, 60, 100, Duration.ofSeconds(60)),
                burst("b", 10, 1, 10, Duration.ofSeconds(1))), 0, WALL);
        assertThat(p.effectivePerSecond(0)).isCloseTo(100.0 / 60, within(1e-9));
        assertThat(p.capacity()).isEqualTo(10.0);
    }

    @Test
    void a429EmptiesTheBucketAndPausesItForRetryAfter() {
        Pacer p = pacer(PacerConfig.documented(10, 10).withPaceFraction(1.0));
        assertThat(p.available(0)).isEqualTo(10.0);
        p.onRateLimited(Duration.ofSeconds(3), 0);
        assertThat(p.available(0)).isZero();
        assertThat(p.tryAcquire(1, SECOND)).isEqualTo(2 * SECOND + 100_000_000L);
        assertThat(p.tryAcquire(1, 3 * SECOND + 100_000_000L)).isZero();
    }

    @Test
    void aSpentDailyQuotaBlocksWithTheQuotaKindAndResetInstant() {
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(quota("daily", 10_000, 86_400, 0, Duration.ofSeconds(19_200))), 0, WALL);
        Pacer.Block b = p.block(0);
        assertThat(b.policy()).isEqualTo("daily");
        assertThat(b.kind()).isEqualTo(PolicyKind.QUOTA);
        // t = 19,200 is the server's own ceiling (relative): no margin; R04's margin is for absolute resets
        assertThat(b.resetAt()).isEqualTo(WALL.plusSeconds(19_200));
        assertThat(p.tryAcquire(1, 0)).isEqualTo(19_200 * SECOND);
    }

    @Test
    void aSpentPolicyWithAnAbsoluteResetBlocksForTheResetPlusTheMarginR04() {
        Pacer p = pacer(PacerConfig.defaults());
        p.observe(Snapshots.ok(Snapshots.absoluteReset(quota("daily", 10_000, 86_400, 0, Duration.ofSeconds(19_200)))),
                0, WALL);
        assertThat(p.block(0).resetAt()).isEqualTo(WALL.plusSeconds(19_201));
        assertThat(p.tryAcquire(1, 0)).isEqualTo(19_201 * SECOND);
    }

    @Test
    void readyInNanosIsWhatIsLeftOfThePauseThenTheRefillAndTakesNothing() {
        Pacer p = pacer(PacerConfig.documented(2, 4).withPaceFraction(1.0));
        assertThat(p.readyInNanos(1, 0)).as("a full bucket").isZero();
        p.onRateLimited(Duration.ofSeconds(3), 0);
        // paused 3 s, then one token at 2/s: 0.5 s; two tokens: 1 s
        assertThat(p.readyInNanos(1, 0)).isEqualTo(3 * SECOND + SECOND / 2);
        assertThat(p.readyInNanos(2, SECOND)).isEqualTo(2 * SECOND + SECOND);
        assertThat(p.readyInNanos(1, 3 * SECOND + SECOND / 2)).isZero();
        assertThat(p.available(3 * SECOND + SECOND / 2)).as("nothing was taken").isEqualTo(1.0);
    }

    @Test
    void aQuotaAnswerWithoutPoliciesPausesThePacerUntilItsResetR08() {
        Pacer p = pacer(PacerConfig.defaults());
        Instant resetAt = WALL.plus(Duration.ofHours(6));
        p.onQuotaExhausted("daily", Duration.ofHours(6), resetAt, 0);
        Pacer.Block block = p.block(SECOND);
        assertThat(block.kind()).isEqualTo(PolicyKind.QUOTA);
        assertThat(block.policy()).isEqualTo("daily");
        assertThat(block.resetAt()).isEqualTo(resetAt);
        assertThat(p.readyInNanos(1, 0)).isEqualTo(Duration.ofHours(6).toNanos());
        assertThat(p.block(Duration.ofHours(6).toNanos())).as("over at the reset").isNull();
    }

    @Test
    void aCostAboveThePacedBurstButWithinTheApisWaitsForAFullBucketAndTakesIt() {
        // documented(10, 10): bucket 9; a call of cost 10 is still grantable (the server takes 10)
        Pacer p = pacer(PacerConfig.documented(10, 10));
        assertThat(p.tryAcquire(10, 0)).isZero();
        assertThat(p.available(0)).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.tryAcquire(11, 0))
                .isInstanceOf(IllegalArgumentException.class); // R14: more than the API's burst, never
    }

    @Test
    void aColdStartSpendsOneBurstUntilTheFirstAnswerAndThenPacesFromThatAnswer() {
        // documented(10, 20): 9/s, bucket 18, margin 2. A full bucket: 18 calls go at once; the
        // bucket refills while nothing has been answered (the first burst may land late), but
        // that refill cannot be spent beyond the burst; the answer at 1 s keeps the margin only.
        Pacer p = pacer(PacerConfig.documented(10, 20));
        for (int i = 0; i < 18; i++) {
            assertThat(p.tryAcquire(1, 0)).isZero();
        }
        assertThat(p.holding()).isTrue();
        assertThat(p.available(SECOND)).as("refilled meanwhile").isCloseTo(9.0, within(1e-9));
        assertThat(p.tryAcquire(1, SECOND)).as("not spendable before an answer").isPositive();
        p.endHold(SECOND);
        assertThat(p.holding()).isFalse();
        assertThat(p.available(SECOND)).as("what the hold left (0) plus the margin (2)").isCloseTo(2.0, within(1e-9));
        assertThat(p.tryAcquire(1, SECOND)).isZero();
        assertThat(p.tryAcquire(1, SECOND)).isZero();
        assertThat(p.tryAcquire(1, SECOND)).as("then 9/s from the answer").isEqualTo(SECOND / 9 + 1);
    }

    @Test
    void callsFromAPartlyEmptyBucketStartNoHold() {
        Pacer p = pacer(PacerConfig.documented(10, 20));
        p.tryAcquire(1, 0);
        p.endHold(0);
        assertThat(p.tryAcquire(1, SECOND / 10)).isZero();
        assertThat(p.holding()).as("the bucket was not full: the server has been counting").isFalse();
    }
}
