package dev.sluice.wire.value;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpDateTest {

    private static final Instant REFERENCE = Instant.parse("2026-11-30T18:00:00Z");
    /** 1994-11-06T08:49:37Z, the instant of RFC 9110 §5.6.7's three examples. */
    private static final Instant RFC_EXAMPLE = Instant.ofEpochSecond(784_111_777L);

    @ParameterizedTest
    @ValueSource(strings = {
        "Sun, 06 Nov 1994 08:49:37 GMT",   // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
        "Sun Nov  6 08:49:37 1994",        // obsolete asctime
    })
    void readsAllThreeRfc9110FormsAsTheSameInstant(String value) {
        assertThat(HttpDate.parse(value, REFERENCE)).isEqualTo(RFC_EXAMPLE);
    }

    @Test
    void readsUtcWhateverTheJvmDefaultZone() {
        TimeZone saved = TimeZone.getDefault();
        try {
            for (String zone : new String[] {"Pacific/Kiritimati", "America/St_Johns", "Asia/Kathmandu"}) {
                TimeZone.setDefault(TimeZone.getTimeZone(zone));
                assertThat(HttpDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", REFERENCE)).isEqualTo(RFC_EXAMPLE);
                assertThat(HttpDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", REFERENCE)).isEqualTo(RFC_EXAMPLE);
                assertThat(HttpDate.parse("Sun Nov  6 08:49:37 1994", REFERENCE)).isEqualTo(RFC_EXAMPLE);
            }
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void rfc850TwoDigitYearMoreThanFiftyYearsAheadIsThePreviousCentury() {
        // RFC 9110 §5.6.7, relative to the reference year 2026: 2076 is 50 years ahead, 2077 is 51
        assertThat(HttpDate.parse("Friday, 06-Nov-76 00:00:00 GMT", REFERENCE)).isEqualTo("2076-11-06T00:00:00Z");
        assertThat(HttpDate.parse("Saturday, 06-Nov-77 00:00:00 GMT", REFERENCE)).isEqualTo("1977-11-06T00:00:00Z");
        assertThat(HttpDate.parse("Monday, 06-Nov-30 00:00:00 GMT", REFERENCE)).isEqualTo("2030-11-06T00:00:00Z");
    }

    @Test
    void toleratesCaseUtcOneDigitDaysAndAWrongWeekday() {
        Instant expected = Instant.parse("2019-08-05T09:27:05Z");
        assertThat(HttpDate.parse("mon, 05 AUG 2019 09:27:05 utc", REFERENCE)).isEqualTo(expected);
        assertThat(HttpDate.parse("Mon, 5 Aug 2019 09:27:05 GMT", REFERENCE)).isEqualTo(expected);
        assertThat(HttpDate.parse("Fri, 05 Aug 2019 09:27:05 GMT", REFERENCE)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "120", "2026", "-3", "Sun, 31 Feb 2026 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 CET",
        "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994", "2026-09-11T06:27:29Z", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, 06 Nov 19940 08:49:37 GMT",
    })
    void rejectsAnythingElseWithNullNotAnException(String value) {
        assertThat(HttpDate.parse(value, REFERENCE)).isNull();
    }

    @Test
    void anAbsurdReferenceClockDoesNotBreakRfc850() {
        assertThat(HttpDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", Instant.MAX)).isEqualTo(RFC_EXAMPLE);
        assertThat(HttpDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", Instant.MIN)).isEqualTo(RFC_EXAMPLE);
    }

    /**
     * RFC 9110 §5.6.7 asks recipients to be lenient; these are the RFC 5322 §3.3 / §4.3 forms
     * (numeric zone, {@code UT}, obsolete US zone names) servers send instead of {@code GMT}.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "Thu, 25 Jun 2020 21:30:12 +0000",      // the RFC 5322 numeric zone
        "Thu, 25 Jun 2020 21:30:12 UT",         // RFC 5322 §4.3 obs-zone
        "Thu, 25 Jun 2020 21:30:12 GMT+00:00",
        "Thu, 25 Jun 2020 21:30:12 GMT +0000",
        "Thu, 25 Jun 2020 21:30:12 -0000",      // RFC 5322 §3.3: UTC, local zone unknown
        "Thu, 25 Jun 2020 21:30:12 +0000 (UTC)",  // with an RFC 5322 comment
        "Thu, 25 Jun 2020 21:30:12 Z",
        "25 Jun 2020 21:30:12 GMT",             // RFC 5322: the day name is optional
        "Thursday, 25-Jun-20 21:30:12 +0000",   // RFC 850 form with a numeric zone
    })
    void readsNumericAndSpelledOutUtcZonesLeniently(String value) {
        assertThat(HttpDate.parse(value, REFERENCE)).isEqualTo("2020-06-25T21:30:12Z");
        assertThat(HttpDate.conforms(value)).isFalse();
    }

    @Test
    void appliesANonZeroOffset() {
        // 21:30:12 at UTC+02:00 is 19:30:12 UTC; at UTC-07:00 (PDT, RFC 5322 §4.3) 04:30:12 the next day
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 +0200", REFERENCE)).isEqualTo("2020-06-25T19:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 +02:00", REFERENCE)).isEqualTo("2020-06-25T19:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 UTC+2", REFERENCE)).isEqualTo("2020-06-25T19:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 -0700", REFERENCE)).isEqualTo("2020-06-26T04:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 PDT", REFERENCE)).isEqualTo("2020-06-26T04:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 EST", REFERENCE)).isEqualTo("2020-06-26T02:30:12Z");
        assertThat(HttpDate.parse("Thu, 25 Jun 2020 21:30:12 +0530", REFERENCE)).isEqualTo("2020-06-25T16:00:12Z");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "Thu, 25 Jun 2020 21:30:12 +2400", "Thu, 25 Jun 2020 21:30:12 +0060", "Thu, 25 Jun 2020 21:30:12 +00000",
        "Thu, 25 Jun 2020 21:30:12 0000", "Thu, 25 Jun 2020 21:30:12 +", "Thu, 25 Jun 2020 21:30:12 GMT+",
        "Thu, 25 Jun 2020 21:30:12 A", "Thu, 25 Jun 2020 21:30:12 +0000 +0000", "Thu, 25 Jun 2020 21:30:12 +00:0:0",
        "Thu, 25 Jun 2020 21:30:12 GMTX", "25 Jun 2020 21:30:12", "Thu, 25 Jun 2020 21:30:12 (UTC)",
    })
    void rejectsZonesThatNameNoDefinedOffset(String value) {
        assertThat(HttpDate.parse(value, REFERENCE)).isNull();
        assertThat(HttpDate.conforms(value)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"})
    void theThreeRfc9110FormsConform(String value) {
        assertThat(HttpDate.conforms(value)).isTrue();
    }

    @Test
    void nullIsNotADate() {
        assertThat(HttpDate.parse(null, REFERENCE)).isNull();
    }
}
