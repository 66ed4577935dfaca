package dev.sluice.wire.retryafter;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.value.GoDuration;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.ListMembers;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes {@code Retry-After} (RFC 9110 §10.2.3; SPEC §2.3, §2.4) and the vendor field
 * {@code retry-after-ms}.
 *
 * <h2>Reading (SPEC §2.4)</h2>
 * <ul>
 *   <li>delay-seconds ({@code 120}); an HTTP-date in any of its three forms, always UTC, converted
 *       with the response's own {@code Date} as "now" when present (skew-proof) and the caller's
 *       clock otherwise; a date in the past means zero (R01). The RFC 5322 forms servers send
 *       instead ({@code +0000}, {@code UT}, {@code GMT+00:00}, {@code -0700} applied, no day name)
 *       are read leniently too (RFC 9110 §5.6.7; {@link HttpDate}); the registry records them as
 *       non-conformant.</li>
 *   <li>Lenient where servers are known to stray (R02, R05): decimal seconds ({@code 0.503},
 *       {@code 2.0}) are rounded <em>up</em> to whole seconds so that a retry never comes earlier
 *       than asked; a Go duration ({@code 1m0s}) is accepted.</li>
 *   <li>Malformed values give {@link RetryAfterHint.Invalid}: a sign ({@code -1}, {@code +3}),
 *       trailing junk ({@code 120junk}), {@code inf}, {@code nan}, {@code 1e10000}, an unparseable
 *       date. A numeric-looking value is never re-read as a date, except a whole RFC 5322 date
 *       without its day name.</li>
 *   <li>Huge values ({@code 99999999999999999999}, a date in the year 9999) saturate at
 *       {@link WireNumbers#MAX_DURATION} (2<sup>31</sup> − 1 s) instead of overflowing (R03).</li>
 *   <li>A field sent twice, as two lines or as one comma-joined line ({@code 5, 10}), is one field
 *       (RFC 9110 §5.3): the longest valid member wins, so that a hint is never undercut
 *       (SPEC §2.4).</li>
 * </ul>
 * Nothing here throws on any field value; the only exceptions are {@link NullPointerException} for
 * a {@code null} reference instant or headers.
 *
 * <h2>Writing (SPEC §2.3)</h2>
 * Delay-seconds only, never an HTTP-date (client clocks are skewed): the exact wait rounded up to
 * whole seconds, and at least 1 (R02), because the edge writes the field only on 429 and 503. A
 * negative wait is a stale-state bug of the caller and is refused (R02).
 *
 * <p>Stateless and thread-safe.
 */
public final class RetryAfter {

    /** The field name {@code Retry-After}. */
    public static final String FIELD = "Retry-After";
    /** The vendor field {@code retry-after-ms} (OpenAI, Anthropic, Azure SDKs). */
    public static final String FIELD_MS = "retry-after-ms";
    /** The field name {@code Date}. */
    public static final String DATE = "Date";

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);

    private RetryAfter() {
    }

    /**
     * Reads {@code Retry-After} from a response's fields, using its {@code Date} as "now" when
     * present and valid, else {@code localNow}.
     *
     * @param headers the response fields
     * @param localNow the caller's wall clock at receipt, used only when there is no valid
     *     {@code Date}
     */
    public static RetryAfterHint read(HttpFields headers, Instant localNow) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(localNow, "localNow");
        List<String> lines = headers.all(FIELD);
        if (lines.isEmpty()) {
            return RetryAfterHint.ABSENT;
        }
        return parseLines(lines, responseTime(headers, localNow));
    }

    /**
     * The response's own time: its {@code Date} when present and valid, else {@code localNow}.
     * This is the "now" of every relative value Sluice derives from a response (SPEC §2.4).
     */
    public static Instant responseTime(HttpFields headers, Instant localNow) {
        Instant date = HttpDate.parse(headers.first(DATE).orElse(null), localNow);
        return date != null ? date : localNow;
    }

    /**
     * Parses one {@code Retry-After} field value.
     *
     * @param value the field value, or {@code null} when the field is absent
     * @param now the instant an HTTP-date is measured from: the response's {@code Date}, else the
     *     caller's clock
     * @return {@link RetryAfterHint#ABSENT} for {@code null}; {@link RetryAfterHint.Invalid} for a
     *     malformed value; otherwise a {@link RetryAfterHint.Delay}
     */
    public static RetryAfterHint parse(@Nullable String value, Instant now) {
        Objects.requireNonNull(now, "now");
        if (value == null) {
            return RetryAfterHint.ABSENT;
        }
        return parseLines(List.of(value), now);
    }

    /**
     * Parses every field line of {@code Retry-After} as one field. A field that arrived twice, as
     * two lines ({@code 5} and {@code 10}) or joined by an intermediary into one ({@code 5, 10}),
     * is the same field (RFC 9110 §5.3), so both forms give the same answer: the <b>longest</b>
     * valid member, because a hint is never undercut (SPEC §2.4). The comma of an HTTP-date does
     * not split it ({@link ListMembers}).
     *
     * @param lines the field lines in arrival order; an empty list is {@link RetryAfterHint#ABSENT}
     * @param now as for {@link #parse(String, Instant)}
     * @return the longest {@link RetryAfterHint.Delay} among the members; when none is valid, the
     *     first member's {@link RetryAfterHint.Invalid}
     */
    public static RetryAfterHint parseLines(List<String> lines, Instant now) {
        Objects.requireNonNull(now, "now");
        if (lines.isEmpty()) {
            return RetryAfterHint.ABSENT;
        }
        if (lines.size() == 1 && lines.get(0).indexOf(',') < 0) {
            return parseOne(lines.get(0), now); // the common case: one plain value, kept as received
        }
        List<String> members = ListMembers.of(lines);
        if (members.isEmpty()) {
            return parseOne(lines.get(0), now);
        }
        return longest(members, m -> parseOne(m, now));
    }

    /** The longest Delay among the members, else the first Invalid ({@link RetryAfterHint#ABSENT} for none). */
    private static RetryAfterHint longest(List<String> members, Function<String, RetryAfterHint> parser) {
        RetryAfterHint.@Nullable Delay best = null;
        @Nullable RetryAfterHint firstInvalid = null;
        for (String m : members) {
            RetryAfterHint h = parser.apply(m);
            if (h instanceof RetryAfterHint.Delay d) {
                if (best == null || d.duration().compareTo(best.duration()) > 0) {
                    best = d;
                }
            } else if (firstInvalid == null) {
                firstInvalid = h;
            }
        }
        return best != null ? best : firstInvalid != null ? firstInvalid : RetryAfterHint.ABSENT;
    }

    private static RetryAfterHint parseOne(String value, Instant now) {
        String s = value.strip();
        if (s.isEmpty()) {
            return new RetryAfterHint.Invalid(value, "empty");
        }
        char first = s.charAt(0);
        if (first == '-') {
            return new RetryAfterHint.Invalid(value, "negative");
        }
        if (first == '+') {
            return new RetryAfterHint.Invalid(value, "signed number");
        }
        Duration seconds = WireNumbers.parseDecimal(s, SECOND, SECOND); // null unless a decimal
        if (seconds != null) {
            RetryAfterHint.Form form = WireNumbers.parseCount(s) >= 0
                    ? RetryAfterHint.Form.DELAY_SECONDS : RetryAfterHint.Form.DECIMAL_SECONDS;
            return new RetryAfterHint.Delay(seconds, form, null);
        }
        if ((first >= '0' && first <= '9') || first == '.') {
            Duration go = GoDuration.parse(s);
            if (go != null) {
                return new RetryAfterHint.Delay(WireNumbers.roundUp(go, MILLI), RetryAfterHint.Form.GO_DURATION, null);
            }
            // numeric-looking but not a number: never a bare year ("2026") read as a date; only the
            // whole RFC 5322 form without its day name ("25 Jun 2020 21:30:12 +0000") is one
            Instant dayless = s.indexOf(' ') > 0 ? HttpDate.parse(s, now) : null;
            if (dayless == null) {
                return new RetryAfterHint.Invalid(value, "not a number");
            }
            return new RetryAfterHint.Delay(between(now, dayless), RetryAfterHint.Form.HTTP_DATE, dayless);
        }
        Instant date = HttpDate.parse(s, now);
        if (date == null) {
            return new RetryAfterHint.Invalid(value, "not delay-seconds or an HTTP-date");
        }
        return new RetryAfterHint.Delay(between(now, date), RetryAfterHint.Form.HTTP_DATE, date);
    }

    /**
     * Parses a {@code retry-after-ms} value: non-negative milliseconds, possibly fractional
     * ({@code 1500}, {@code 20.5}), rounded up to whole milliseconds; {@code -1} and anything else
     * that is not a plain non-negative decimal is {@link RetryAfterHint.Invalid} (R01).
     *
     * @param value the field value, or {@code null} when absent
     */
    public static RetryAfterHint parseMillis(@Nullable String value) {
        if (value == null) {
            return RetryAfterHint.ABSENT;
        }
        return parseMillisLines(List.of(value));
    }

    /**
     * Parses every field line of {@code retry-after-ms} as one field: the longest valid member, as
     * for {@link #parseLines(List, Instant)}.
     *
     * @param lines the field lines in arrival order; an empty list is {@link RetryAfterHint#ABSENT}
     */
    public static RetryAfterHint parseMillisLines(List<String> lines) {
        if (lines.isEmpty()) {
            return RetryAfterHint.ABSENT;
        }
        if (lines.size() == 1 && lines.get(0).indexOf(',') < 0) {
            return parseMillisOne(lines.get(0));
        }
        List<String> members = ListMembers.of(lines);
        if (members.isEmpty()) {
            return parseMillisOne(lines.get(0));
        }
        return longest(members, RetryAfter::parseMillisOne);
    }

    private static RetryAfterHint parseMillisOne(String value) {
        Duration d = WireNumbers.parseDecimal(value, MILLI, MILLI);
        if (d == null) {
            String s = value.strip();
            return new RetryAfterHint.Invalid(value, s.startsWith("-") ? "negative" : "not a number");
        }
        return new RetryAfterHint.Delay(d, RetryAfterHint.Form.MILLISECONDS, null);
    }

    /** Reads {@code retry-after-ms} from a response's fields. */
    public static RetryAfterHint readMillis(HttpFields headers) {
        return parseMillisLines(headers.all(FIELD_MS));
    }

    /**
     * The time from {@code now} until {@code target}: zero when {@code target} is not after
     * {@code now}, saturated at {@link WireNumbers#MAX_DURATION}.
     */
    public static Duration between(Instant now, Instant target) {
        if (!target.isAfter(now)) {
            return Duration.ZERO;
        }
        long seconds = target.getEpochSecond() - now.getEpochSecond();
        if (seconds >= WireNumbers.MAX_DURATION.getSeconds()) {
            return WireNumbers.MAX_DURATION;
        }
        return WireNumbers.clamp(Duration.between(now, target));
    }

    /**
     * The delay-seconds to write for an exact wait: rounded up to whole seconds, at least 1
     * (SPEC §2.3; R02: 0.493 s → 1, 292.052 s → 293, zero → 1 because the field is written only on
     * 429 and 503, where "retry now" would invite the same answer).
     *
     * <p>A <b>negative</b> wait is refused rather than clamped. It can only come from a limiter
     * that computed the wait from stale state (a window that has already rolled over); R02's rule
     * for the server is to recompute from current state, never to emit {@code -43}, and clamping
     * to {@code 1} here would hide that bug behind a plausible-looking header. This matches
     * {@code RateLimitWriter}, which refuses a negative {@code t} for the same reason.
     *
     * @param wait the exact wait the limiter computed; zero or positive
     * @return whole seconds, 1 ≤ result ≤ 2<sup>31</sup> − 1 (longer waits saturate, R03)
     * @throws NullPointerException if {@code wait} is {@code null}
     * @throws IllegalArgumentException if {@code wait} is negative (R02: recompute it from the
     *     limiter's current state)
     */
    public static long delaySeconds(Duration wait) {
        Objects.requireNonNull(wait, "wait");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("negative wait " + wait
                    + ": the limiter's state is stale; recompute the wait from current state (R02)");
        }
        Duration rounded = WireNumbers.roundUp(wait, SECOND);
        return Math.max(1L, rounded.getSeconds());
    }

    /**
     * The {@code Retry-After} field value for an exact wait: {@link #delaySeconds(Duration)} as
     * decimal digits, e.g. {@code "19200"}; {@code Duration.ZERO} gives {@code "1"}.
     *
     * @throws NullPointerException if {@code wait} is {@code null}
     * @throws IllegalArgumentException if {@code wait} is negative: a stale limiter state, which
     *     the caller must recompute rather than publish (R02; see {@link #delaySeconds(Duration)})
     */
    public static String format(Duration wait) {
        return Long.toString(delaySeconds(wait));
    }
}
