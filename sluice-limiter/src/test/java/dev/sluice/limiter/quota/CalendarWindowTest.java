package dev.sluice.limiter.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CalendarWindowTest {

    private static long s(String instant) {
        return Instant.parse(instant).getEpochSecond();
    }

    @Test
    void dailyWindowAtSixPmEndsIn21600Seconds() {
        // SPEC §2.1: "daily";t=21600 at 18:00 UTC
        CalendarWindow daily = CalendarWindow.daily();
        Instant sixPm = Instant.parse("2026-11-30T18:00:00Z");

        assertThat(daily.secondsUntilEnd(daily.windowIdAt(sixPm), sixPm)).isEqualTo(21_600);
    }

    @Test
    void dailyWindowAtTwentyToSevenEndsIn19200Seconds() {
        // SPEC §3.4: retry_after_s 19200 at 18:40 UTC
        CalendarWindow daily = CalendarWindow.daily();
        Instant t = Instant.parse("2026-11-30T18:40:00Z");

        assertThat(daily.secondsUntilEnd(daily.windowIdAt(t), t)).isEqualTo(19_200);
    }

    @Test
    void aFractionalSecondRoundsTheWaitUp() {
        CalendarWindow daily = CalendarWindow.daily();
        Instant t = Instant.parse("2026-11-30T23:59:59.001Z");

        assertThat(daily.secondsUntilEnd(daily.windowIdAt(t), t)).isEqualTo(1);
    }

    @Test
    void dailyBoundaryIsMidnightUtc() {
        CalendarWindow daily = CalendarWindow.daily();
        long id = daily.windowIdAt(s("2026-11-30T23:59:59Z"));

        assertThat(daily.windowIdAt(s("2026-12-01T00:00:00Z"))).isEqualTo(id + 1);
        assertThat(daily.endEpochSecond(id)).isEqualTo(s("2026-12-01T00:00:00Z"));
        assertThat(daily.startEpochSecond(id)).isEqualTo(s("2026-11-30T00:00:00Z"));
    }

    @ParameterizedTest(name = "anchor {0} at {1}: window [{2}, {3})")
    @CsvSource({
        "1,  2026-11-30T18:00:00Z, 2026-11-01T00:00:00Z, 2026-12-01T00:00:00Z",
        "15, 2026-11-30T18:00:00Z, 2026-11-15T00:00:00Z, 2026-12-15T00:00:00Z",
        "15, 2026-11-14T23:59:59Z, 2026-10-15T00:00:00Z, 2026-11-15T00:00:00Z",
        "31, 2026-11-30T00:00:00Z, 2026-11-30T00:00:00Z, 2026-12-31T00:00:00Z",
        "31, 2026-11-29T23:59:59Z, 2026-10-31T00:00:00Z, 2026-11-30T00:00:00Z",
        "31, 2027-02-28T12:00:00Z, 2027-02-28T00:00:00Z, 2027-03-31T00:00:00Z",
        "30, 2028-02-29T00:00:00Z, 2028-02-29T00:00:00Z, 2028-03-30T00:00:00Z",
        "29, 2027-01-01T00:00:00Z, 2026-12-29T00:00:00Z, 2027-01-29T00:00:00Z",
    })
    void monthlyWindowsRenewOnTheAnchorDayClampedToTheMonth(int anchor, String at, String start, String end) {
        CalendarWindow monthly = CalendarWindow.monthly(anchor);
        long id = monthly.windowIdAt(s(at));

        assertThat(monthly.startEpochSecond(id)).isEqualTo(s(start));
        assertThat(monthly.endEpochSecond(id)).isEqualTo(s(end));
    }

    @Test
    void everySecondBelongsToTheWindowWhoseBoundsContainIt() {
        // the one boundary function: windowIdAt agrees with startEpochSecond around every renewal
        for (int anchor : new int[] {1, 28, 29, 30, 31}) {
            CalendarWindow monthly = CalendarWindow.monthly(anchor);
            for (long id = 600; id < 700; id++) {
                long start = monthly.startEpochSecond(id);
                assertThat(monthly.windowIdAt(start)).isEqualTo(id);
                assertThat(monthly.windowIdAt(start - 1)).isEqualTo(id - 1);
                assertThat(monthly.endEpochSecond(id)).isGreaterThan(start);
            }
        }
    }

    @Test
    void anchorDayOutsideOneToThirtyOneIsRejected() {
        assertThatThrownBy(() -> CalendarWindow.monthly(0)).hasMessageStartingWith("anchor-day:");
        assertThatThrownBy(() -> CalendarWindow.monthly(32)).hasMessageStartingWith("anchor-day:");
    }
}
