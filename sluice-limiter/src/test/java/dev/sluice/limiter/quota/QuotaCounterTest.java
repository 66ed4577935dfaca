package dev.sluice.limiter.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuotaCounterTest {

    private static final long DAY = 20_787; // 2026-11-30 as days since the epoch

    @Test
    void chargesAddUpWithinAWindow() {
        long s = QuotaCounter.admit(0, DAY, 7_690, 10_000);

        assertThat(QuotaCounter.effectiveUsed(s, DAY)).isEqualTo(7_690);
        assertThat(QuotaCounter.admit(s, DAY, 2_310, 10_000)).isNotEqualTo(QuotaCounter.DENIED);
        assertThat(QuotaCounter.admit(s, DAY, 2_311, 10_000)).isEqualTo(QuotaCounter.DENIED);
    }

    @Test
    void aNewerWindowStartsEmpty() {
        long s = QuotaCounter.pack(DAY, 10_000);

        assertThat(QuotaCounter.effectiveUsed(s, DAY + 1)).isZero();
        assertThat(QuotaCounter.isFull(s, DAY + 1)).isTrue();
        assertThat(QuotaCounter.admit(s, DAY + 1, 1, 10_000)).isEqualTo(QuotaCounter.pack(DAY + 1, 1));
    }

    @Test
    void aStoredWindowAheadOfTheClockKeepsCounting() {
        // the wall clock stepped back a day: the state still counts against the later window
        long s = QuotaCounter.pack(DAY + 1, 10_000);

        assertThat(QuotaCounter.effectiveWindow(s, DAY)).isEqualTo(DAY + 1);
        assertThat(QuotaCounter.effectiveUsed(s, DAY)).isEqualTo(10_000);
        assertThat(QuotaCounter.admit(s, DAY, 1, 10_000)).isEqualTo(QuotaCounter.DENIED);
    }

    @Test
    void theLargestQuotaFitsAndPackedStatesAreNeverNegative() {
        long s = QuotaCounter.admit(0, (1L << 19) - 1, QuotaCounter.MAX_USED, QuotaCounter.MAX_USED);

        assertThat(s).isNotNegative();
        assertThat(QuotaCounter.effectiveUsed(s, (1L << 19) - 1)).isEqualTo(QuotaCounter.MAX_USED);
    }

    @Test
    void aRefundOnlyTouchesTheWindowItWasChargedIn() {
        long s = QuotaCounter.pack(DAY, 50);

        assertThat(QuotaCounter.refund(s, DAY, 20)).isEqualTo(QuotaCounter.pack(DAY, 30));
        assertThat(QuotaCounter.refund(s, DAY, 80)).isEqualTo(QuotaCounter.pack(DAY, 0));
        assertThat(QuotaCounter.refund(s, DAY - 1, 20)).isEqualTo(s);
    }
}
