package dev.sluice.examples.demo.fleet;

import java.util.Locale;

/**
 * The three clients the demo compares on the same fleet, edge and blip: the retry loop of
 * the incident in the reference documents, a careful hand-written retry, and the Sluice SDK.
 */
public enum ClientKind {
    /**
     * The incident's loop: up to 3 attempts on any non-2xx answer or transport error, sleeping
     * {@code 2^attempt} s (1 s, then 2 s) with no jitter, no pacing, no budget, and a new
     * Idempotency-Key on every attempt.
     */
    NAIVE("naive", "the incident's retry loop: 3 attempts on any non-2xx or error, sleep 1 s then 2 s, no jitter,"
            + " no pacing, no budget, a new Idempotency-Key per attempt"),
    /**
     * A careful hand-written retry over the JDK client: Retry-After + jitter, no retry of a spent
     * quota, the same Idempotency-Key on every attempt; no budget, throttle or pacing.
     */
    CAREFUL("careful", "the JDK client with a careful retry: 3 attempts on 429 rate_limited, 503 and errors,"
            + " Retry-After + jitter, never a spent quota, the same Idempotency-Key; no budget, throttle or pacing"),
    /**
     * The Sluice SDK with its defaults, its pacer seeded from {@code GET /v1/usage}, the clients of one
     * key sharing one retry budget (SPEC §4.8).
     */
    SDK("Sluice SDK", "the Sluice SDK (SluiceHttpClient) with its defaults, one per client, its pacer seeded from"
            + " GET /v1/usage, the clients of one key sharing one retry budget (SPEC 4.8)");

    private final String label;
    private final String description;

    ClientKind(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** The column heading ("naive", "careful", "Sluice SDK"). */
    public String label() {
        return label;
    }

    /** One line on what it does. */
    public String description() {
        return description;
    }

    /** A stable lower-case id for HTML and option values ({@code naive}, {@code careful}, {@code sdk}). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
