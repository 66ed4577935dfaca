package dev.sluice.wire.value;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

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
 *
 * <p>RFC 9110 §5.6.7 asks recipients to be lenient, and servers in the wild send the RFC 5322
 * §3.3 / §4.3 forms of a date with a zone other than {@code GMT}. These are read as the instant
 * they name, the offset applied, and {@link #conforms(String)} is false for them:
 * <ul>
 *   <li>a numeric zone: {@code Thu, 25 Jun 2020 21:30:12 +0000}, {@code -0700}, {@code +05:30},
 *       also after a {@code GMT}/{@code UTC}/{@code UT} prefix ({@code GMT+00:00},
 *       {@code UTC+0100}, {@code GMT +0000}) and with an RFC 5322 comment ({@code +0000 (UTC)});</li>
 *   <li>a spelled-out zone: {@code UT}, {@code Z}, and RFC 5322 §4.3's North American names
 *       {@code EST} (−5 h), {@code EDT} (−4 h), {@code CST}, {@code CDT}, {@code MST},
 *       {@code MDT}, {@code PST}, {@code PDT} (−7 h);</li>
 *   <li>the same in the RFC 850 form, and an IMF-fixdate without its day name
 *       ({@code 25 Jun 2020 21:30:12 GMT}, which RFC 5322 allows).</li>
 * </ul>
 * Other zone names (military letters, {@code CET}, {@code IST}) are ambiguous or undefined and are
 * rejected, as is an offset beyond ±23:59.
 */
public final class HttpDate {

    private static final String[] MONTHS = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
    };
    private static final String[] DAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    private static final String[] LONG_DAYS = {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
    };

    /** RFC 5322 §4.3's zone names with a defined offset ({@code Z}: ISO 8601's UTC). */
    private static final String[] NAMED_ZONES = {"Z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT"};
    private static final int[] NAMED_OFFSET_HOURS = {0, -5, -4, -6, -5, -7, -6, -8, -7};

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
    public static @Nullable Instant parse(@Nullable String value, Instant reference) {
        return parse(value, reference, false);
    }

    /**
     * True when {@code value} is an HTTP-date in one of RFC 9110's three forms, in {@code GMT}
     * (case ignored) or the {@code UTC} spelling this reader has always taken for it; false for
     * the lenient RFC 5322 forms {@link #parse} also reads (a numeric or other spelled-out zone, a
     * missing day name) and for anything that is not a date.
     */
    public static boolean conforms(@Nullable String value) {
        return parse(value, Instant.EPOCH, true) != null;
    }

    private static final int NO_ZONE = Integer.MIN_VALUE;

    private static @Nullable Instant parse(@Nullable String value, Instant reference, boolean strict) {
        if (value == null || value.length() > 64) {
            return null;
        }
        String[] t = value.strip().split("[ ,]+");
        int n = t.length;
        if (!strict && n > 4 && t[n - 1].startsWith("(") && t[n - 1].endsWith(")")) {
            n--; // an RFC 5322 comment after the zone: "+0000 (UTC)"
        }
        if (n < 4) {
            return null;
        }
        if (!isDayName(t[0])) {
            // RFC 5322 lets the day name go: "25 Jun 2020 21:30:12 +0000"
            if (strict || n < 5 || n > 6 || t[0].isEmpty() || !WireNumbers.isDigit(t[0].charAt(0))) {
                return null;
            }
            String[] shifted = new String[n + 1];
            shifted[0] = "Mon";
            System.arraycopy(t, 0, shifted, 1, n);
            t = shifted;
            n++;
        }
        if (n == 6 || n == 7) {
            // IMF-fixdate: [day-name, DD, Mon, YYYY, hh:mm:ss, GMT] (+ a separate offset: "GMT +0000")
            int offset = zone(t[5], n == 7 ? t[6] : null, strict);
            Instant local = offset == NO_ZONE ? null : fromParts(t[3], t[2], t[1], t[4], 4);
            return local == null ? null : local.minusSeconds(offset);
        }
        if (n == 4) {
            return rfc850(t, reference, strict);
        }
        if (n == 5) {
            // asctime: [day-name, Mon, D, hh:mm:ss, YYYY]
            return fromParts(t[4], t[1], t[2], t[3], 4);
        }
        return null;
    }

    /**
     * The offset from UTC, in seconds, that a zone names ({@code GMT} 0, {@code +0100} 3600,
     * {@code EDT} -14400), or {@link #NO_ZONE}. {@code extra} is a second token after a
     * {@code GMT}/{@code UTC}/{@code UT} prefix ({@code "GMT +0000"}), or {@code null}.
     */
    private static int zone(String zone, @Nullable String extra, boolean strict) {
        if (strict) {
            return extra == null && isGmt(zone) ? 0 : NO_ZONE;
        }
        String z = zone.toUpperCase(Locale.ROOT);
        String prefix = z.startsWith("GMT") || z.startsWith("UTC") ? z.substring(0, 3) : z.startsWith("UT") ? "UT" : "";
        String rest = z.substring(prefix.length());
        if (extra != null) {
            if (prefix.isEmpty() || !rest.isEmpty()) {
                return NO_ZONE;
            }
            rest = extra;
        }
        if (rest.isEmpty()) {
            return prefix.isEmpty() ? NO_ZONE : 0;
        }
        if (prefix.isEmpty()) {
            int named = indexOf(NAMED_ZONES, rest);
            if (named >= 0) {
                return NAMED_OFFSET_HOURS[named] * 3_600;
            }
        }
        return numericOffset(rest);
    }

    /** {@code +hhmm}, {@code -hh:mm}, {@code +hh} or {@code +h}, in seconds, or {@link #NO_ZONE}. */
    private static int numericOffset(String s) {
        if (s.length() < 2 || (s.charAt(0) != '+' && s.charAt(0) != '-')) {
            return NO_ZONE;
        }
        String body = s.substring(1);
        String hh;
        String mm;
        if (body.length() == 5 && body.charAt(2) == ':') {
            hh = body.substring(0, 2);
            mm = body.substring(3);
        } else if (body.length() == 4) {
            hh = body.substring(0, 2);
            mm = body.substring(2);
        } else if (body.length() <= 2) {
            hh = body;
            mm = "00";
        } else {
            return NO_ZONE;
        }
        long h = WireNumbers.parseCount(hh);
        long m = WireNumbers.parseCount(mm);
        if (h < 0 || h > 23 || m < 0 || m > 59) {
            return NO_ZONE;
        }
        int offset = (int) (h * 3_600 + m * 60);
        return s.charAt(0) == '-' ? -offset : offset;
    }

    private static @Nullable Instant rfc850(String[] t, Instant reference, boolean strict) {
        // Sunday, 06-Nov-94 08:49:37 GMT  ->  [Sunday, 06-Nov-94, 08:49:37, GMT]
        int offset = zone(t[3], null, strict);
        if (offset == NO_ZONE) {
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
        Instant local = fromParts(Long.toString(year), dmy[1], dmy[0], t[2], 1);
        return local == null ? null : local.minusSeconds(offset);
    }

    private static @Nullable Instant fromParts(String yearText, String monthText, String dayText,
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
