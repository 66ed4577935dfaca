package dev.sluice.limiter.gcra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GcraTest {

    private static final long MS = 1_000; // micros per millisecond

    @Test
    void emissionIntervalIsAWholeNumberOfTicks() {
        // 3 per second: T = 333,333.33 µs, exact in ticks of 1/3 µs
        GcraParams p = GcraParams.of(3, 1);

        assertThat(p.ticksPerMicro()).isEqualTo(3);
        assertThat(p.emissionTicks()).isEqualTo(1_000_000);
        assertThat(p.capacityTicks()).isEqualTo(3_000_000);
        assertThat(p.exact()).isTrue();
    }

    @Test
    void aStaleClockReadingNeverGivesANegativeRemaining() {
        // a decision that read the clock just before another thread admitted at a later reading can see
        // a TAT more than the capacity ahead of its own "now": r is 0 then, never negative (SPEC §1: 0 ≤ r ≤ q)
        GcraParams p = GcraParams.of(20, 2);
        long now = 5_000 * MS;
        long tat = now + p.capacityTicks() + 150 * MS;

        assertThat(Gcra.remaining(p, tat, now)).isZero();
        assertThat(Gcra.remaining(p, now + p.capacityTicks(), now)).isZero();
        assertThat(Gcra.remaining(p, now, now)).isEqualTo(20);
    }

    @Test
    void roundRatesNeedNoScaling() {
        // SPEC §2.1: 20 per 2 s is one token per 100 ms
        GcraParams p = GcraParams.of(20, 2);

        assertThat(p.ticksPerMicro()).isEqualTo(1);
        assertThat(p.emissionTicks()).isEqualTo(100 * MS);
    }

    @Test
    void veryFineOddRatesRoundTheIntervalUpAndStayWithinOnePercent() {
        // 10 MiB of content per second: 1/10485760 s per byte is not a whole number of 1/2048 µs
        GcraParams p = GcraParams.of(10_485_760, 1);

        assertThat(p.exact()).isFalse();
        assertThat(p.ticksPerMicro()).isEqualTo(GcraParams.MAX_TICKS_PER_MICRO);
        double exactTicks = 1e6 * 2048 / 10_485_760;
        assertThat((double) p.emissionTicks()).isGreaterThanOrEqualTo(exactTicks).isLessThan(exactTicks * 1.01);
        assertThat(p.capacityTicks()).isEqualTo(p.emissionTicks() * 10_485_760);
    }

    @Test
    void ratesTooFineToEnforceWithinOnePercentAreRejected() {
        assertThatThrownBy(() -> GcraParams.of(1_000_000_007L, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("q: ");
    }

    @Test
    void r14bZeroCapacityOrZeroWindowIsRejectedNeverAllowAll() {
        assertThatThrownBy(() -> GcraParams.of(0, 1)).hasMessageStartingWith("q: must be > 0");
        assertThatThrownBy(() -> GcraParams.of(1, 0)).hasMessageStartingWith("w: must be > 0");
    }

    @Test
    void r13WaitIsTheMissingFractionOfAToken() {
        // R13: capacity 1, 1/s; one taken at 0; at 200 ms the wait is 800 ms, not a full period
        GcraParams p = GcraParams.of(1, 1);
        long tat = Gcra.admit(p, 0, 0, 1);

        assertThat(Gcra.admit(p, tat, 200 * MS, 1)).isEqualTo(Gcra.DENIED);
        assertThat(Gcra.waitTicks(p, tat, 200 * MS, 1)).isEqualTo(800 * MS);
        assertThat(Gcra.ceilSeconds(p, Gcra.waitTicks(p, tat, 200 * MS, 1))).isEqualTo(1);
    }

    @Test
    void aFullBucketAdmitsExactlyItsCapacity() {
        GcraParams p = GcraParams.of(20, 2);
        long tat = 0;
        for (int i = 0; i < 20; i++) {
            tat = Gcra.admit(p, tat, 0, 1);
            assertThat(tat).isNotEqualTo(Gcra.DENIED);
        }

        assertThat(Gcra.admit(p, tat, 0, 1)).isEqualTo(Gcra.DENIED);
        assertThat(Gcra.remaining(p, tat, 0)).isZero();
        assertThat(Gcra.resetSeconds(p, tat, 0)).isEqualTo(2);
    }

    @Test
    void fractionalTokensRoundDownInRemainingAndUpInReset() {
        GcraParams p = GcraParams.of(20, 2);
        long tat = Gcra.admit(p, 0, 0, 13);

        assertThat(Gcra.remaining(p, tat, 0)).isEqualTo(7);
        assertThat(Gcra.resetSeconds(p, tat, 0)).isEqualTo(2); // 1.3 s up to 2 (SPEC §2.1)
        assertThat(Gcra.remaining(p, tat, 150 * MS)).isEqualTo(8); // 1.5 tokens back: 8.5 -> 8
    }

    @Test
    void r15bAStaleNowNeverMovesTheArrivalTimeBack() {
        // R15b: 100/s; 10 reserved at t+10 s, then a stale now = t+9 s; read at t+11 s
        GcraParams p = GcraParams.of(100_000, 1_000);
        long tat = Gcra.admit(p, 0, 10_000 * MS, 10);
        long afterStale = Gcra.admit(p, tat, 9_000 * MS, 0);

        assertThat(afterStale).isEqualTo(tat);
        // 100 tokens accrue from t+10 s to t+11 s: 10 spent come back, and the bucket is full, not over
        assertThat(Gcra.remaining(p, afterStale, 11_000 * MS)).isEqualTo(100_000);
        assertThat(Gcra.remaining(p, afterStale, 10_050 * MS)).isEqualTo(100_000 - 5);
    }

    @Test
    void aRefundCreditsAtMostBackToFull() {
        GcraParams p = GcraParams.of(10, 10);
        long tat = Gcra.admit(p, 0, 0, 5);

        assertThat(Gcra.remaining(p, Gcra.refund(p, tat, 0, 3), 0)).isEqualTo(8);
        assertThat(Gcra.refund(p, tat, 2_000_000, 5)).isEqualTo(2_000_000); // 2 came back already
        assertThat(Gcra.remaining(p, Gcra.refund(p, tat, 2_000_000, 5), 2_000_000)).isEqualTo(10);
    }

    @Test
    void tenYearsOfTicksFitInALongAtTheLargestScale() {
        GcraParams p = GcraParams.of(10_485_760, 1);
        long tenYearsMicros = 3_653L * 86_400 * 1_000_000;
        long tat = Gcra.admit(p, 0, 0, 10_485_760);

        long now = p.ticksOf(tenYearsMicros);

        assertThat(now).isPositive();
        assertThat(Gcra.isFull(tat, now)).isTrue();
        assertThat(Gcra.remaining(p, tat, now)).isEqualTo(10_485_760);
    }
}
