package dev.sluice.delivery.spi;

import dev.sluice.delivery.ResponseClass;
import dev.sluice.wire.http.HttpFields;
import java.time.Duration;
import java.util.Objects;

/** What one request came to: an answer, or a failure classed by whether it may have been received. */
public sealed interface TransportResult {

    /** From sending to the answer or failure. */
    Duration latency();

    /**
     * The receiver answered.
     *
     * @param status the status code, 100..599
     * @param headers the response's header fields (Retry-After, Date, ...)
     */
    record Answered(int status, HttpFields headers, Duration latency) implements TransportResult {
        public Answered {
            Objects.requireNonNull(headers, "headers");
        }
    }

    /**
     * No answer.
     *
     * @param responseClass {@link ResponseClass#CONNECTION_FAILED} (never sent),
     *     {@link ResponseClass#TIMEOUT} or {@link ResponseClass#CONNECTION_RESET} (may have been
     *     received)
     * @param error a short description
     */
    record Failed(ResponseClass responseClass, String error, Duration latency) implements TransportResult {
        public Failed {
            if (responseClass != ResponseClass.CONNECTION_FAILED && responseClass != ResponseClass.TIMEOUT
                    && responseClass != ResponseClass.CONNECTION_RESET) {
                throw new IllegalArgumentException("not a failure class: " + responseClass);
            }
        }
    }
}
