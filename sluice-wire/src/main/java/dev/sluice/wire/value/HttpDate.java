package dev.sluice.wire.value;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * Reads an HTTP-date (RFC 9110 §5.6.7) in all three forms a recipient must accept, always as UTC
 * whatever the JVM's default time zone:
 * <ul>
 *   <li>IMF-fixdate: {@code Sun, 06 Nov 1994 08:49:37 GMT}</li>
 *   <li>obsolete RFC 850: {@code Sunday, 06-Nov-94 08:49:37 GMT} — a two-digit year that would lie
 *       more than 50 years after {@code reference} is the most recent past year with those digits</li>
 *   <li>obsolete asctime: {@code Sun Nov  6 08:49:37 1994} (no zone: GMT)</li>
 * </ul>
 *
 * <p>Lenient where real servers are sloppy and nothing is at stake: names in any case, {@code UTC}
 * for {@code GMT}, a one-digit day, runs of spaces, a weekday that does not match the date. Strict
 * about everything that changes the instant: field ranges, month names, four-digit years in
 * IMF-fixdate and asctime. Never throws. Stateless and thread-safe.
 */
public final class HttpDate {

    private static final String[] MONTHS = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
    };
    private static final String[] DAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    private static final String[] LONG_DAYS = {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
    };

    private static final Instant FIRST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LAST = Instant.parse("9999-12-31T23:59:59Z");

    private HttpDate() {
    }

    /**
     * Parses an HTTP-date.
     *
     * @param value the field value (surrounding whitespace tolerated), may be {@code null}
     * @param reference the instant that decides the century of an RFC 850 two-digit year (the
     *     response's {@code Date}, else the caller's clock); unused by the other forms
     * @return the instant, or {@code null} when {@code value} is not an HTTP-date
     */
    public static Instant parse(String value, Instant reference) {
        if (value == null || value.length() > 64) {
            return null;
        }
        String[] t = value.strip().split("[ ,]+");
        if (t.length < 4 || !isDayName(t[0])) {
            return null;
        }
        if (t.length == 6) {
            // IMF-fixdate: [day-name, DD, Mon, YYYY, hh:mm:ss, GMT]
            return isGmt(t[5]) ? fromParts(t[3], t[2], t[1], t[4], 4) : null;
        }
        if (t.length == 4) {
            return rfc850(t, reference);
        }
        if (t.length == 5) {
            // asctime: [day-name, Mon, D, hh:mm:ss, YYYY]
            return fromParts(t[4], t[1], t[2], t[3], 4);
        }
        return null;
    }

    private static Instant rfc850(String[] t, Instant reference) {
        // Sunday, 06-Nov-94 08:49:37 GMT  ->  [Sunday, 06-Nov-94, 08:49:37, GMT]
        if (!isGmt(t[3])) {
            return null;
        }
        String[] dmy = t[1].split("-", -1);
        if (dmy.length != 3 || dmy[2].length() != 2) {
            return null;
        }
        long yy = WireNumbers.parseCount(dmy[2]);
        if (yy < 0) {
            return null;
        }
        int referenceYear = reference.isBefore(FIRST) || reference.isAfter(LAST)
                ? 2000 // an absurd reference clock: any century is as good, and atZone would throw
                : reference.atZone(ZoneOffset.UTC).getYear();
        long year = (referenceYear / 100) * 100L + yy;
        if (year > referenceYear + 50) {
            year -= 100;
        }
        return fromParts(Long.toString(year), dmy[1], dmy[0], t[2], 1);
    }

    private static Instant fromParts(String yearText, String monthText, String dayText,
            String timeText, int minYearDigits) {
        if (yearText.length() < minYearDigits || yearText.length() > 4) {
            return null;
        }
        long year = WireNumbers.parseCount(yearText);
        int month = indexOf(MONTHS, monthText.toLowerCase(Locale.ROOT)) + 1;
        long dayOfMonth = dayText.length() <= 2 ? WireNumbers.parseCount(dayText) : -1;
        if (year < 1 || month < 1 || dayOfMonth < 1) {
            return null;
        }
        if (dayOfMonth > LocalDate.of((int) year, month, 1).lengthOfMonth()) {
            return null;
        }
        String[] hms = timeText.split(":", -1);
        if (hms.length != 3) {
            return null;
        }
        long h = twoDigits(hms[0]);
        long m = twoDigits(hms[1]);
        long s = twoDigits(hms[2]);
        if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60) {
            return null;
        }
        long epochDay = LocalDate.of((int) year, month, (int) dayOfMonth).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400L + h * 3_600L + m * 60L + s);
    }

    private static long twoDigits(String s) {
        return s.length() == 2 ? WireNumbers.parseCount(s) : -1;
    }

    /** True when {@code token} is a day name, short or long, in any case ({@code Wed}, {@code Sunday}). */
    static boolean isDayName(String token) {
        String d = token.toLowerCase(Locale.ROOT);
        return indexOf(DAYS, d) >= 0 || indexOf(LONG_DAYS, d) >= 0;
    }

    private static boolean isGmt(String zone) {
        return zone.equalsIgnoreCase("GMT") || zone.equalsIgnoreCase("UTC");
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
