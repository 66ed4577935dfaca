package dev.sluice.client;

/** What one attempt's answer was, as the SDK classified it (SPEC §4.2). */
public enum AttemptOutcome {
    /** 1xx–3xx. */
    SUCCESS,
    /** 429 {@code rate_limited}: a pacing signal. */
    RATE_LIMITED,
    /** A spent quota (429 {@code quota_exhausted}, or a quota policy at {@code r=0}). */
    QUOTA_EXHAUSTED,
    /** 503, 529: the server is short of capacity. */
    OVERLOADED,
    /** Another 4xx. */
    CLIENT_ERROR,
    /** Another 5xx. */
    SERVER_ERROR,
    /** No answer in time; the request may have been processed. */
    TIMEOUT,
    /** The connection failed after sending; the request may have been processed. */
    CONNECTION_LOST,
    /** The connection failed before anything was sent. */
    NOT_SENT
}
