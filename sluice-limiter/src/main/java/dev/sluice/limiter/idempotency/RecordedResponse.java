package dev.sluice.limiter.idempotency;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The final answer recorded for an idempotent request (SPEC §3.11), replayed to a retry with the same
 * {@link RequestFingerprint}. Either the whole answer ({@link Replayable}) or, when its body was larger
 * than the edge's recording bound, only the fact that it happened ({@link NotReplayable}): a retry then
 * gets 409 with that explanation, never a second trip to the upstream. Immutable.
 */
public sealed interface RecordedResponse permits RecordedResponse.Replayable, RecordedResponse.NotReplayable {

    /** The upstream's final status code (200–599). */
    int status();

    /**
     * One header field line of a recorded response.
     *
     * @param name the field name as the upstream sent it; not empty
     * @param value the field value; not {@code null}
     */
    record Field(String name, String value) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("name: must not be empty");
            }
        }
    }

    /**
     * A response the edge can send again byte for byte.
     *
     * @param status the final status code, 200–599
     * @param fields the end-to-end header fields to replay, in order (the edge leaves out hop-by-hop
     *     fields and its own rate-limit fields, which are computed afresh for the retry)
     * @param body the response body (copied in and out: the record is immutable)
     */
    record Replayable(int status, List<Field> fields, byte[] body) implements RecordedResponse {
        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException if {@code status} is outside 200–599
         */
        public Replayable {
            checkStatus(status);
            fields = List.copyOf(fields);
            body = body.clone();
        }

        /** A copy of the body. */
        @Override
        public byte[] body() {
            return body.clone();
        }

        /** The body's length in bytes, without copying it. */
        public int bodyLength() {
            return body.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Replayable r && r.status == status && r.fields.equals(fields)
                    && Arrays.equals(r.body, body);
        }

        @Override
        public int hashCode() {
            return Objects.hash(status, fields, Arrays.hashCode(body));
        }

        @Override
        public String toString() {
            return "Replayable[status=" + status + ", fields=" + fields + ", body=" + body.length + " bytes]";
        }
    }

    /**
     * A response that happened but was not kept (its body exceeded the recording bound).
     *
     * @param status the final status code the first request got, 200–599
     * @param reason why it was not kept, for the 409's {@code detail} (e.g. {@code "the response body
     *     exceeded 65536 bytes"}); not {@code null}
     */
    record NotReplayable(int status, String reason) implements RecordedResponse {
        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException if {@code status} is outside 200–599
         */
        public NotReplayable {
            checkStatus(status);
            Objects.requireNonNull(reason, "reason");
        }
    }

    private static void checkStatus(int status) {
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("status: must be 200-599, was " + status);
        }
    }
}
