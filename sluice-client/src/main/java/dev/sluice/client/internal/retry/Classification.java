package dev.sluice.client.internal.retry;

import dev.sluice.client.SluiceException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One answer classified (SPEC §4.2): success, worth a retry (with the server's hint if any), or a
 * terminal error. {@code accepted} is what the adaptive throttle records (R12): false for 429, 503,
 * overload and for no answer at all.
 */
public sealed interface Classification {

    boolean accepted();

    record Success(int status) implements Classification {
        @Override
        public boolean accepted() {
            return true;
        }
    }

    record Terminal(SluiceException error, boolean accepted) implements Classification {
    }

    /**
     * Worth retrying if attempts, budget, deadline and maximum wait allow.
     *
     * @param kind what went wrong
     * @param hint the server's wait (Retry-After, or a spent policy's reset plus the margin), or
     *     {@code null}: then full-jitter backoff applies
     * @param giveUp builds the error the call ends with if it is not retried
     */
    record Retryable(Kind kind, @Nullable Duration hint, boolean accepted, GiveUp giveUp)
            implements Classification {
    }

    /**
     * The error a retryable answer ends its call with when it is not retried: always the answer's
     * own type ({@code OverloadedException} for a 503), whatever stopped the retry.
     */
    @FunctionalInterface
    interface GiveUp {

        /**
         * @param why why it is not retried, for the message
         * @param refusal the budget's refusal when a budget stopped it (the error's cause), else {@code null}
         */
        SluiceException apply(String why, @Nullable SluiceException refusal);

        default SluiceException apply(String why) {
            return apply(why, null);
        }
    }

    enum Kind {
        /** 429 rate_limited: the pacer is emptied and paused, the queue penalised. */
        RATE_LIMITED,
        /** 503/529: backoff only; never touches rate-limit or quota state (R09). */
        OVERLOADED,
        /** Timeout, reset, connect failure, 408, other 5xx, 409 in progress: safe calls only. */
        TRANSIENT
    }
}
