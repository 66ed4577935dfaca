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
        SUCCEEDED,
        /** 429 quota_exhausted: not retried; the user is told when the quota comes back. */
        QUOTA_EXCEEDED,
        /** The SDK knew the quota was spent and failed the call without a request. */
        QUOTA_EXCEEDED_LOCALLY,
        /** Still 429 rate_limited after the retries. */
        RATE_LIMITED,
        /** Still 503 after the retries. */
        UNAVAILABLE,
        /** The SDK's retry budget refused a retry. */
        BUDGET_EXHAUSTED,
        /** The SDK's adaptive throttle dropped the call before it reached the network. */
        LOCALLY_DROPPED,
        /** The SDK's admission queue shed the call (full, or its deadline passed while queued). */
        SHED,
        /** Anything else: another status, a transport error, a timeout. */
        FAILED,
        /** The demo stopped while the call waited to retry. */
        ABANDONED
    }

    public static CallResult of(Kind kind, int status, int attempts) {
        return new CallResult(kind, status, attempts);
    }
}
