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

/**
 * How a numeric {@code ...-reset} field is to be read. Vendors disagree: the IETF drafts and
 * Zendesk send delta seconds, GitHub, GitLab, Okta and X send epoch seconds, some send
 * milliseconds. {@link #AUTO} decides by magnitude; a user dialect for a server whose convention
 * is known (e.g. delta milliseconds) names it.
 *
 * <p>Whatever the unit, an absolute reset is converted with the response's own time (its
 * {@code Date}, skew-proof, R04) and clamped at zero; the exact value is kept (no safety margin:
 * that belongs to the caller's pacer).
 */
public enum ResetUnit {
    /**
     * Decide by the value: ≥ 10<sup>12</sup> is epoch milliseconds, ≥ 10<sup>9</sup> is epoch
     * seconds (a delta of 31 years is not a reset), anything smaller is delta seconds (fractions
     * allowed). Non-numeric values are tried as RFC 3339, HTTP-date, then Go duration.
     */
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

    /**
     * Reads {@code value} in this unit and sets {@code resetIn} and {@code resetAt} on
     * {@code policy}; an unreadable or negative value sets nothing.
     *
     * @param value the field value, may be {@code null}
     * @param responseTime the response's time ({@link DialectInput#responseTime()})
     * @return true when a reset was set
     */
    public boolean apply(String value, Instant responseTime, PolicySnapshot.Builder policy) {
        if (value == null) {
            return false;
        }
        String s = value.strip();
        if (WireNumbers.isDecimal(s)) {
            ResetUnit unit = this == AUTO ? byMagnitude(s) : this;
            switch (unit) {
                case DELTA_SECONDS -> delta(WireNumbers.parseDecimal(s, SECOND, MILLI), responseTime, policy);
                case DELTA_MILLIS -> delta(WireNumbers.parseDecimal(s, MILLI, MILLI), responseTime, policy);
                case EPOCH_SECONDS -> absolute(epoch(s, SECOND), responseTime, policy);
                case EPOCH_MILLIS -> absolute(epoch(s, MILLI), responseTime, policy);
                default -> {
                    return false;
                }
            }
            return true;
        }
        if (this != AUTO) {
            return false;
        }
        Instant at = Rfc3339.parse(s);
        if (at == null && !s.isEmpty() && !Character.isDigit(s.charAt(0))) {
            at = HttpDate.parse(s, responseTime);
        }
        if (at != null) {
            absolute(at, responseTime, policy);
            return true;
        }
        Duration go = GoDuration.parse(s);
        if (go != null) {
            delta(WireNumbers.roundUp(go, MILLI), responseTime, policy);
            return true;
        }
        return false;
    }

    private static ResetUnit byMagnitude(String decimal) {
        int dot = decimal.indexOf('.');
        long whole = WireNumbers.parseCount(dot < 0 ? decimal : decimal.substring(0, dot));
        if (whole >= EPOCH_MILLIS_FLOOR) {
            return EPOCH_MILLIS;
        }
        return whole >= EPOCH_SECONDS_FLOOR ? EPOCH_SECONDS : DELTA_SECONDS;
    }

    /** An epoch value as an instant, millisecond precision (Discord sends {@code 1470173023.123}). */
    private static Instant epoch(String decimal, Duration unit) {
        Duration sinceEpoch = WireNumbers.parseDecimal(decimal, unit, MILLI);
        return Instant.EPOCH.plus(sinceEpoch);
    }

    static void delta(Duration in, Instant responseTime, PolicySnapshot.Builder policy) {
        Duration d = WireNumbers.clamp(in);
        policy.resetIn(d);
        if (policy.resetAt() == null) {
            policy.resetAt(plus(responseTime, d));
        }
    }

    /** {@code t + d}, or {@code null} beyond {@link Instant#MAX} (an absurd caller clock). */
    static Instant plus(Instant t, Duration d) {
        try {
            return t.plus(d);
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    static void absolute(Instant at, Instant responseTime, PolicySnapshot.Builder policy) {
        policy.resetAt(at);
        policy.resetIn(WireNumbers.roundUp(RetryAfter.between(responseTime, at), MILLI));
    }
}
