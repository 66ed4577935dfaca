package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LittlesLawTest {

    @Test
    void twentyPerSecondTimesFiveSecondsIsAHundred() {
        assertThat(LittlesLaw.queueLength(20, Duration.ofSeconds(5))).isEqualTo(100); // SPEC §5.1
    }

    @Test
    void fractionalProductsRoundUp() {
        assertThat(LittlesLaw.queueLength(2.5, Duration.ofMillis(1500))).isEqualTo(4); // 3.75
        assertThat(LittlesLaw.queueLength(0, Duration.ofSeconds(5))).isZero();
    }

    @Test
    void hugeProductsSaturate() {
        assertThat(LittlesLaw.queueLength(1e12, Duration.ofDays(365))).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> LittlesLaw.queueLength(-1, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LittlesLaw.queueLength(Double.NaN, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LittlesLaw.queueLength(1, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
