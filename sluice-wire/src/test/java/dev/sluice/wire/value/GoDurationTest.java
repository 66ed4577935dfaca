package dev.sluice.wire.value;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

    /** R05's table, plus the units of Go's time.ParseDuration. */
    @ParameterizedTest
    @CsvSource({
        "6m0s, 360000000000",
        "2m30.5s, 150500000000",
        "500ms, 500000000",
        "2m59.56s, 179560000000",
        "7.66s, 7660000000",
        "1m0s, 60000000000",
        "1s, 1000000000",
        "60s, 60000000000",
        "20ms, 20000000",
        "12ms, 12000000",
        "1h2m3.5s, 3723500000000",
        "1.5h, 5400000000000",
        ".5s, 500000000",
        "1.s, 1000000000",
        "3us, 3000",
        "3\u00b5s, 3000",
        "3\u03bcs, 3000",
        "7ns, 7",
        "0, 0",
        "0s, 0",
        "' 6m0s ', 360000000000",
    })
    void readsTheWholeValueInNanoseconds(String value, long nanos) {
        assertThat(GoDuration.parse(value)).isEqualTo(Duration.ofNanos(nanos));
    }

    /** R05: never a prefix number, never an exception; R01/R02: never negative. */
    @ParameterizedTest
    @ValueSource(strings = {
        "", "s", "1", "2m59.56", "-1s", "+1s", "-43", "1x", "1.2.3s", "1e3s", "2026-09-11T06:27:29Z",
        "6m0", "m0s", "1s2", "1 s", "inf", "nan", "1d", "..5s", "1S",
    })
    void rejectsAnythingThatIsNotAGoDuration(String value) {
        assertThat(GoDuration.parse(value)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999999999999999h", "2562048h", "99999999999999999999999999999999999999ns"})
    void saturatesInsteadOfOverflowing(String value) {
        assertThat(GoDuration.parse(value)).isEqualTo(WireNumbers.MAX_DURATION);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0000000001s", "1.0000000001s"})
    void roundsFractionsBelowANanosecondUp(String value) {
        Duration d = GoDuration.parse(value);
        assertThat(d.getNano()).isEqualTo(1);
    }
}
