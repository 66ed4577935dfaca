package dev.sluice.wire.dialect;

import dev.sluice.wire.retryafter.RetryAfter;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.GoDuration;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.Rfc3339;
import dev.sluice.wire.value.WireNumbers;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a numeric {@code ...-reset} field is to be read. Vendors disagree: the IETF drafts, Zendesk
 * and Reddit send delta seconds, GitHub, GitLab, Okta and X send epoch seconds, some send
 * milliseconds. A dialect names the unit its vendor documents; {@link #AUTO} decides by the value.
 *
 * <h2>A named unit is a default, not a cage</h2>
 * The same field names are reused by servers with other conventions (Reddit sends GitHub's
 * {@code x-ratelimit-used}/{@code -reset} names with a delta reset: {@code 502} would be
 * 1970-01-01T00:08:22Z as an epoch). So a value is read in the dialect's unit only when it is
 * plausible in that unit, and otherwise by its magnitude:
 * <ul>
 *   <li>an <b>epoch</b> (seconds, milliseconds) is plausible when it names an instant from
 *       2001-09-09T01:46:40Z (10<sup>9</sup> s) to ten years after the response's time (its
 *       {@code Date}). Below 10<sup>9</sup> no unit gives a plausible epoch; far beyond the
 *       response's time it is no reset a server would announce;</li>
 *   <li>a <b>delta</b> is plausible below 10<sup>9</sup> seconds (31 years) or 10<sup>12</sup>
 *       milliseconds;</li>
 *   <li>by magnitude: below 10<sup>9</sup> a delta (in the dialect's scale: milliseconds for the
 *       {@code _MILLIS} units, else seconds); from 10<sup>9</sup> an epoch in seconds, from
 *       10<sup>12</sup> in milliseconds, from 10<sup>15</sup> in microseconds, from
 *       10<sup>18</sup> in nanoseconds, when that epoch is plausible; otherwise a delta, which then
 *       saturates at {@link WireNumbers#MAX_DURATION} (R03: huge values never vanish).</li>
 * </ul>
 * A value that is not a number is read in the form it evidently has, whatever the unit: RFC 3339,
 * HTTP-date, then Go duration ({@code 6m0s}).
 *
 * <p>Whatever the unit, an absolute reset is converted with the response's own time (its
 * {@code Date}, skew-proof, R04), clamped at zero and marked
 * {@link PolicySnapshot#absoluteReset()}; the exact value is kept (the safety margin belongs to
 * {@link PolicySnapshot#resetWait(java.time.Duration)}).
 */
public enum ResetUnit {
    /** Decide by the value alone (see the class comment). */
    AUTO,
    /** Seconds from the response's time, possibly fractional. */
    DELTA_SECONDS,
    /** Milliseconds from the response's time (e.g. {@code 600000} = 10 minutes). */
    DELTA_MILLIS,
    /** Unix epoch seconds, possibly fractional. */
    EPOCH_SECONDS,
    /** Unix epoch milliseconds. */
    EPOCH_MILLIS;

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);
    private static final long EPOCH_SECONDS_FLOOR = 1_000_000_000L;
    private static final long EPOCH_MILLIS_FLOOR = 1_000_000_000_000L;
    private static final long EPOCH_MICROS_FLOOR = 1_000_000_000_000_000L;
    private static final long EPOCH_NANOS_FLOOR = 1_000_000_000_000_000_000L;
    /** An epoch this far after the response's time is no reset: 10 years (of 366 days). */
    private static final long MAX_EPOCH_AHEAD_SECONDS = 10L * 366 * 86_400;

    /** One reading of a reset value. */
    record Reading(Duration resetIn, @Nullable Instant resetAt, boolean absolute) {
    }

    /**
     * Reads {@code value} and sets {@code resetIn}, {@code resetAt} and {@code absoluteReset} on
     * {@code policy}; an unreadable or negative value sets nothing.
     *
     * @param value the field value, may be {@code null}
     * @param responseTime the response's time ({@link DialectInput#responseTime()})
     * @return true when a reset was set
     */
    public boolean apply(String value, Instant responseTime, PolicySnapshot.Builder policy) {
        Reading r = read(value, responseTime);
        if (r == null) {
            return false;
        }
        set(r, policy);
        return true;
    }

    /**
     * Reads every value (the members of every field line of one field, or of equivalent fields) and
     * applies the one that implies the longest wait: a field sent twice is one field, and a wait is
     * never undercut (RFC 9110 §5.3, SPEC §2.4). Unreadable values are skipped.
     *
     * @return true when a reset was set
     */
    public boolean applyLongest(List<String> values, Instant responseTime, PolicySnapshot.Builder policy) {
        Reading best = null;
        for (String v : values) {
            Reading r = read(v, responseTime);
            if (r != null && (best == null || longer(r, best))) {
                best = r;
            }
        }
        if (best == null) {
            return false;
        }
        set(best, policy);
        return true;
    }

    /** True when {@code value}, read in this unit, is an absolute reset (an epoch or a date). */
    boolean readsAsAbsolute(String value, Instant responseTime) {
        Reading r = read(value, responseTime);
        return r != null && r.absolute();
    }

    /** {@code value} read in this unit, or {@code null} when it is not a reset. */
    @Nullable Reading read(String value, Instant responseTime) {
        if (value == null) {
            return null;
        }
        String s = value.strip();
        if (WireNumbers.isDecimal(s)) {
            int dot = s.indexOf('.');
            long whole = WireNumbers.parseCount(dot < 0 ? s : s.substring(0, dot));
            return switch (resolve(whole, responseTime)) {
                case DELTA_SECONDS -> delta(WireNumbers.parseDecimal(s, SECOND, MILLI), responseTime);
                case DELTA_MILLIS -> delta(WireNumbers.parseDecimal(s, MILLI, MILLI), responseTime);
                case EPOCH_SECONDS -> absolute(epoch(s, 1L), responseTime);
                case EPOCH_MILLIS -> absolute(epoch(s, 1_000L), responseTime);
                case AUTO -> absolute(epoch(s, whole < EPOCH_NANOS_FLOOR ? 1_000_000L : 1_000_000_000L), responseTime);
            };
        }
        Instant at = Rfc3339.parse(s);
        if (at == null && !s.isEmpty() && Character.isLetter(s.charAt(0))) {
            at = HttpDate.parse(s, responseTime);
        }
        if (at != null) {
            return absolute(at, responseTime);
        }
        Duration go = GoDuration.parse(s);
        return go == null ? null : delta(WireNumbers.roundUp(go, MILLI), responseTime);
    }

    /**
     * The unit a number of magnitude {@code whole} is read in: this unit when plausible, else by
     * magnitude. {@code AUTO} in the result stands for "epoch micro- or nanoseconds".
     */
    private ResetUnit resolve(long whole, Instant responseTime) {
        switch (this) {
            case DELTA_SECONDS -> {
                if (whole < EPOCH_SECONDS_FLOOR) {
                    return DELTA_SECONDS;
                }
            }
            case DELTA_MILLIS -> {
                if (whole < EPOCH_MILLIS_FLOOR) {
                    return DELTA_MILLIS;
                }
            }
            case EPOCH_SECONDS -> {
                if (plausibleEpoch(whole, 1L, responseTime)) {
                    return EPOCH_SECONDS;
                }
            }
            case EPOCH_MILLIS -> {
                if (plausibleEpoch(whole, 1_000L, responseTime)) {
                    return EPOCH_MILLIS;
                }
            }
            case AUTO -> {
                // by magnitude, below
            }
        }
        if (whole >= EPOCH_SECONDS_FLOOR) {
            long perSecond = whole < EPOCH_MILLIS_FLOOR ? 1L
                    : whole < EPOCH_MICROS_FLOOR ? 1_000L
                    : whole < EPOCH_NANOS_FLOOR ? 1_000_000L : 1_000_000_000L;
            if (plausibleEpoch(whole, perSecond, responseTime)) {
                return perSecond == 1L ? EPOCH_SECONDS : perSecond == 1_000L ? EPOCH_MILLIS : AUTO;
            }
        }
        return this == DELTA_MILLIS || this == EPOCH_MILLIS ? DELTA_MILLIS : DELTA_SECONDS;
    }

    private static boolean plausibleEpoch(long whole, long perSecond, Instant responseTime) {
        long seconds = whole / perSecond;
        return seconds >= EPOCH_SECONDS_FLOOR
                && seconds - responseTime.getEpochSecond() <= MAX_EPOCH_AHEAD_SECONDS;
    }

    /**
     * An epoch value ({@code 1470173023.123}: Discord) with {@code perSecond} units per second, as
     * an instant rounded up to the millisecond; {@code null} beyond {@link Instant#MAX}.
     */
    private static @Nullable Instant epoch(String decimal, long perSecond) {
        int dot = decimal.indexOf('.');
        String wholeDigits = dot < 0 ? decimal : decimal.substring(0, dot);
        long whole = WireNumbers.parseCount(wholeDigits);
        long seconds = whole / perSecond;
        long nanosPerUnit = 1_000_000_000L / perSecond;
        long nanos = (whole % perSecond) * nanosPerUnit;
        if (dot >= 0) {
            // the fraction of one unit, rounded up to whole nanoseconds (never early)
            Duration fraction = WireNumbers.parseDecimal("0" + decimal.substring(dot), Duration.ofNanos(nanosPerUnit),
                    Duration.ofNanos(1));
            nanos += fraction == null ? 0 : fraction.toNanos();
        }
        long subMilli = nanos % 1_000_000L;
        if (subMilli != 0) {
            nanos += 1_000_000L - subMilli; // millisecond precision, rounded up: never early
        }
        try {
            return Instant.ofEpochSecond(seconds, nanos);
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    private static boolean longer(Reading a, Reading b) {
        int c = a.resetIn().compareTo(b.resetIn());
        return c > 0 || (c == 0 && a.absolute() && !b.absolute()); // an absolute reset waits its margin too
    }

    private static void set(Reading r, PolicySnapshot.Builder policy) {
        // resetAt always names the reset that resetIn (and so the wait) came from
        policy.resetIn(r.resetIn()).absoluteReset(r.absolute()).resetAt(r.resetAt());
    }

    private static @Nullable Reading delta(@Nullable Duration in, Instant responseTime) {
        if (in == null) {
            return null;
        }
        Duration d = WireNumbers.clamp(in);
        return new Reading(d, plus(responseTime, d), false);
    }

    private static @Nullable Reading absolute(@Nullable Instant at, Instant responseTime) {
        return at == null ? null : absoluteReading(at, responseTime);
    }

    private static Reading absoluteReading(Instant at, Instant responseTime) {
        return new Reading(WireNumbers.roundUp(RetryAfter.between(responseTime, at), MILLI), at, true);
    }

    /** Sets a relative reset of {@code in} on {@code policy} (draft-11 {@code t}, Go durations). */
    static void delta(Duration in, Instant responseTime, PolicySnapshot.Builder policy) {
        Duration d = WireNumbers.clamp(in);
        // the relative reset is the one waited for, so resetAt is the instant it names
        policy.resetIn(d).absoluteReset(false).resetAt(plus(responseTime, d));
    }

    /** {@code t + d}, or {@code null} beyond {@link Instant#MAX} (an absurd caller clock). */
    static @Nullable Instant plus(Instant t, Duration d) {
        try {
            return t.plus(d);
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    /** {@code t - d}, or {@code t} itself when that would fall before {@link Instant#MIN}. */
    static Instant minus(Instant t, Duration d) {
        try {
            return t.minus(d);
        } catch (DateTimeException | ArithmeticException e) {
            return t;
        }
    }

    /** Sets an absolute reset at {@code at} on {@code policy} (RFC 3339, HTTP-date). */
    static void absolute(Instant at, Instant responseTime, PolicySnapshot.Builder policy) {
        set(absoluteReading(at, responseTime), policy);
    }
}
