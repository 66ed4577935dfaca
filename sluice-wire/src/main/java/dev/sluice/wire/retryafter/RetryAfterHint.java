package dev.sluice.wire.retryafter;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code Retry-After} (or {@code retry-after-ms}) field said, as a closed set of answers so
 * that callers cannot confuse "the server said nothing" with "the server said something unusable"
 * (SPEC §2.4; regression cases R01, R02).
 *
 * <ul>
 *   <li>{@link Absent}: no such field. The caller uses its own jittered backoff.</li>
 *   <li>{@link Invalid}: the field is there but malformed (negative, garbage, {@code inf}); per SPEC
 *       §2.4 it means "absent" for waiting, but it is kept distinct for logs and tests.</li>
 *   <li>{@link Delay}: a usable wait, never negative, at most
 *       {@link dev.sluice.wire.value.WireNumbers#MAX_DURATION}.</li>
 * </ul>
 */
public sealed interface RetryAfterHint {

    /** The single {@link Absent} value. */
    RetryAfterHint ABSENT = new Absent();

    /** The wait when this is a {@link Delay}; empty for {@link Absent} and {@link Invalid}. */
    default Optional<Duration> delay() {
        return this instanceof Delay d ? Optional.of(d.duration()) : Optional.empty();
    }

    /** True for a {@link Delay}. */
    default boolean isUsable() {
        return this instanceof Delay;
    }

    /** No {@code Retry-After} field at all. */
    record Absent() implements RetryAfterHint {
    }

    /**
     * A field that is present but not a valid hint.
     *
     * @param value the field value as received
     * @param reason why it was rejected, for logs (e.g. {@code "negative"}, {@code "not a number or
     *     HTTP-date"})
     */
    record Invalid(String value, String reason) implements RetryAfterHint {
        public Invalid {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * A usable hint.
     *
     * @param duration how long to wait from the response's time; never negative; zero means "retry now"
     *     (and a date in the past); saturated at {@code WireNumbers.MAX_DURATION}
     * @param form which syntax the server used
     * @param notBefore for {@link Form#HTTP_DATE}, the instant the server named; {@code null}
     *     otherwise
     */
    record Delay(Duration duration, Form form, @Nullable Instant notBefore) implements RetryAfterHint {
        public Delay {
            Objects.requireNonNull(duration, "duration");
            Objects.requireNonNull(form, "form");
            if (duration.isNegative()) {
                throw new IllegalArgumentException("duration must not be negative: " + duration);
            }
        }
    }

    /** The syntax a {@link Delay} was written in. */
    enum Form {
        /** {@code delay-seconds = 1*DIGIT} (RFC 9110 §10.2.3). */
        DELAY_SECONDS,
        /** Lenient: decimal seconds such as {@code 0.503}, rounded up to whole seconds (R02). */
        DECIMAL_SECONDS,
        /** Lenient: a Go duration such as {@code 1m0s} (R05), rounded up to milliseconds. */
        GO_DURATION,
        /** An HTTP-date, converted with the response's {@code Date} (or the local clock). */
        HTTP_DATE,
        /** {@code retry-after-ms}: milliseconds, possibly fractional, rounded up. */
        MILLISECONDS
    }
}
