package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Property
    void formatReadsBackExactly(@ForAll @LongRange(min = 0, max = 864_000_000_000_000L) long nanos) {
        Duration d = Duration.ofNanos(nanos);

        assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }

    @Test
    void formatPicksTheLargestExactUnit() {
        assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(Durations.format(Duration.ofDays(3))).isEqualTo("72h");
        assertThat(Durations.format(Duration.ofNanos(1_500_000))).isEqualTo("1.5ms");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    }

    @Test
    void unitsAreCaseInsensitiveAndBlanksAreIgnored() {
        assertThat(Durations.parse(" 2S ")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("1.5 m")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void tooLongAndNegativeAreRefused() {
        assertThatThrownBy(() -> Durations.parse("10001d")).hasMessage("must be at most 10000d, was '10001d'");
        assertThatThrownBy(() -> Durations.parse("PT-3S")).hasMessage("must be between 0 and 10000d, was 'PT-3S'");
        assertThatThrownBy(() -> Durations.parse("-3s"))
                .hasMessage("not a duration like 250ms, 1.5s, 5m, 2h or 3d: '-3s'");
    }
}
