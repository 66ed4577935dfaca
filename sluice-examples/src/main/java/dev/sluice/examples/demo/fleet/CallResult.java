package dev.sluice.examples.demo.fleet;

/**
 * What became of one call of a virtual client, retries included.
 *
 * @param kind how it ended
 * @param status the last HTTP status seen (0 when none)
 * @param attempts the HTTP attempts it made (0 when it never reached the network)
 */
public record CallResult(Kind kind, int status, int attempts) {

    /** How a call ended. */
    public enum Kind {
        /** A 2xx answer. */
        SUCCEEDED("succeeded"),
        /** 429 quota_exhausted: not retried; the user is told when the quota comes back. */
        QUOTA_EXCEEDED("quota exhausted (429)"),
        /** The SDK knew the quota was spent and failed the call without a request. */
        QUOTA_EXCEEDED_LOCALLY("quota known spent (failed by the SDK, no request)"),
        /** Still 429 rate_limited after the retries. */
        RATE_LIMITED("still rate limited after retries"),
        /** The SDK's pacer could not grant a token within the call's deadline: refused locally, no request. */
        PACED_OUT("refused by the SDK's pacer (no token within the deadline, no request)"),
        /** Still 503 after the retries. */
        UNAVAILABLE("still 503 after retries"),
        /**
         * The SDK's retry budget refused a retry: no room for it before the call's deadline (the
         * call ends as the answer's error, a 503 mostly, with the refusal as its cause).
         */
        BUDGET_EXHAUSTED("retry refused by the SDK's retry budget (no room before the deadline)"),
        /** The SDK's adaptive throttle dropped the call before it reached the network. */
        LOCALLY_DROPPED("dropped locally by adaptive throttling"),
        /** The SDK's admission queue shed the call (full, or its deadline passed while queued). */
        SHED("shed by the SDK's admission queue"),
        /** Anything else: another status (a 409 for a write still in flight, say), a transport error, a timeout. */
        FAILED("failed otherwise"),
        /** The demo stopped while the call was in progress. */
        ABANDONED("abandoned at the stop");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        /** A few words for the summary line. */
        public String describe() {
            return description;
        }
    }

    public static CallResult of(Kind kind, int status, int attempts) {
        return new CallResult(kind, status, attempts);
    }
}
