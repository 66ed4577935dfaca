package dev.sluice.delivery.retry;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.retryafter.RetryAfter;
import dev.sluice.wire.retryafter.RetryAfterHint;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The valid {@code Retry-After} of a response, read by {@code sluice-wire}'s one parser
 * (SPEC §2.4, §6.3): delay-seconds or an HTTP-date in any RFC 9110 form, measured from the
 * response's own {@code Date} when present (so a receiver's clock skew does not move it);
 * negative, garbage and absent values give empty, and the backoff applies (R01); huge values
 * saturate instead of overflowing (R03).
 */
public final class RetryAfterHints {

    private RetryAfterHints() {
    }

    /**
     * @param headers the response's fields
     * @param receivedAt the worker's clock when the answer arrived (used when there is no valid {@code Date})
     * @return the wait the server asked for, or empty when it asked for none usable
     */
    public static Optional<Duration> valid(HttpFields headers, Instant receivedAt) {
        return switch (RetryAfter.read(headers, receivedAt)) {
            case RetryAfterHint.Delay d -> Optional.of(d.duration());
            case RetryAfterHint.Absent a -> Optional.empty();
            case RetryAfterHint.Invalid i -> Optional.empty();
        };
    }
}
