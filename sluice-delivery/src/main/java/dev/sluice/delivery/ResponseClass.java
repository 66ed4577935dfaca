package dev.sluice.delivery;

import java.util.Locale;

/**
 * The class of one attempt's outcome, as recorded in the ledger and dead letters and counted by
 * the listener (SPEC §6.3, §6.9). Retryable: 408, 429, 500, 502, 503, 504, timeouts, connection
 * errors; everything else is terminal.
 */
public enum ResponseClass {
    /** 2xx: delivered. */
    SUCCESS(false, false),
    /** 408 Request Timeout: retryable. */
    REQUEST_TIMEOUT(true, false),
    /** 429 Too Many Requests: retryable, Retry-After honoured. */
    RATE_LIMITED(true, false),
    /** 503 Service Unavailable: retryable, Retry-After honoured. */
    OVERLOADED(true, false),
    /** 500, 502, 504: retryable. */
    SERVER_ERROR(true, false),
    /** 410 Gone: terminal, and the destination is disabled (Standard Webhooks). */
    GONE(false, false),
    /** Any other 4xx: terminal (the request itself is wrong). */
    CLIENT_ERROR(false, false),
    /** 1xx, 3xx (redirects are not followed) and other 5xx such as 501: terminal. */
    UNEXPECTED_STATUS(false, false),
    /** The connection could not be made; the request was never sent, so retrying is always safe. */
    CONNECTION_FAILED(true, false),
    /** No answer within the request timeout after the request was sent: the outcome is unknown. */
    TIMEOUT(true, true),
    /** The connection broke after the request was (possibly) sent: the outcome is unknown. */
    CONNECTION_RESET(true, true);

    private final boolean retryable;
    private final boolean ambiguous;

    ResponseClass(boolean retryable, boolean ambiguous) {
        this.retryable = retryable;
        this.ambiguous = ambiguous;
    }

    /** Whether SPEC §6.3 retries this class. */
    public boolean retryable() {
        return retryable;
    }

    /** Whether the receiver may have acted on the request although no answer arrived. */
    public boolean ambiguous() {
        return ambiguous;
    }

    /**
     * The class of an HTTP status code (SPEC §6.3).
     *
     * @param status 100..599
     */
    public static ResponseClass ofStatus(int status) {
        if (status >= 200 && status <= 299) {
            return SUCCESS;
        }
        return switch (status) {
            case 408 -> REQUEST_TIMEOUT;
            case 429 -> RATE_LIMITED;
            case 503 -> OVERLOADED;
            case 500, 502, 504 -> SERVER_ERROR;
            case 410 -> GONE;
            default -> status >= 400 && status <= 499 ? CLIENT_ERROR : UNEXPECTED_STATUS;
        };
    }

    /** The value stored in the ledger: {@code success}, {@code rate_limited}, ... */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The class named by {@code value}, or {@code null} for {@code null}. */
    public static ResponseClass fromDb(String value) {
        return value == null ? null : valueOf(value.toUpperCase(Locale.ROOT));
    }
}
