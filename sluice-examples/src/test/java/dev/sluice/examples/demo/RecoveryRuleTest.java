package dev.sluice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecoveryRuleTest {

    @Test
    void aStormAboveTheCapacityKeepsShiplaneDown() {
        // capacity 700 requests/s (the default fleet's limit), 2 s in a row
        RecoveryRule rule = new RecoveryRule(700, 2);

        assertThat(rule.second(1_200)).isFalse();
        assertThat(rule.second(650)).isFalse();  // one quiet second is not enough
        assertThat(rule.second(1_300)).isFalse(); // and a loud one starts the count again
        assertThat(rule.second(690)).isFalse();
        assertThat(rule.recovered()).isFalse();
    }

    @Test
    void twoSecondsInARowAtOrUnderTheCapacityRecoverIt() {
        RecoveryRule rule = new RecoveryRule(700, 2);

        assertThat(rule.second(450)).isFalse();
        assertThat(rule.second(700)).isTrue(); // at the capacity counts as within it
        assertThat(rule.second(5_000)).isTrue(); // recovered stays recovered
        assertThat(rule.recovered()).isTrue();
    }

    @Test
    void anInfiniteCapacityIsBackWhenTheBlipEnds() {
        assertThat(new RecoveryRule(Double.POSITIVE_INFINITY, 2).recovered()).isTrue();
    }

    @Test
    void aCapacityOrALengthOutOfRangeIsRefused() {
        assertThatThrownBy(() -> new RecoveryRule(0, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacityPerSecond must be > 0: 0.0");
        assertThatThrownBy(() -> new RecoveryRule(Double.NaN, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RecoveryRule(700, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seconds must be >= 1: 0");
    }
}
