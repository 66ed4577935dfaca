package dev.sluice.client.core;

import dev.sluice.client.SluiceException;
import java.time.Duration;
import java.util.Objects;

/** What the core decided about one answer (DESIGN.md "Seams": return, retry after X, or fail with Y). */
public sealed interface Decision {

    /** The answer is the call's result. */
    record Return() implements Decision {
    }

    /**
     * The call will be retried: it re-enters the admission queue and the next {@code poll} at or after
     * {@code delay} from now starts it (pacer and slot permitting).
     */
    record RetryAfter(Duration delay) implements Decision {
        public RetryAfter {
            Objects.requireNonNull(delay, "delay");
        }
    }

    /** The call ends with this error. */
    record Fail(SluiceException error) implements Decision {
        public Fail {
            Objects.requireNonNull(error, "error");
        }
    }
}
