package dev.sluice.wire.snapshot;

/**
 * What a response means for the caller's traffic, whatever dialect said it (SPEC §1, §3.4, §4.2).
 * The wire name is the lower-case code used in problem types, {@code sluice explain} and metrics.
 */
public enum Outcome {
    /** 1xx–3xx, or a 2xx that carries limit information. */
    OK("ok"),
    /** A burst limit said no; clears in seconds; retryable after the hint. */
    RATE_LIMITED("rate_limited"),
    /** A quota (calendar window, credits, billing) is spent; clears at a reset hours away; not retried. */
    QUOTA_EXHAUSTED("quota_exhausted"),
    /** The server is short of capacity for everyone (503, Anthropic 529, ...); never a quota matter. */
    OVERLOADED("overloaded"),
    /** Any other 4xx. */
    CLIENT_ERROR("client_error"),
    /** Any other 5xx. */
    SERVER_ERROR("server_error");

    private final String wireName;

    Outcome(String wireName) {
        this.wireName = wireName;
    }

    /** The lower-case code: {@code ok}, {@code rate_limited}, {@code quota_exhausted}, ... */
    public String wireName() {
        return wireName;
    }

    /** True for the two answers that say "you sent too much": rate_limited and quota_exhausted. */
    public boolean isLimit() {
        return this == RATE_LIMITED || this == QUOTA_EXHAUSTED;
    }
}
