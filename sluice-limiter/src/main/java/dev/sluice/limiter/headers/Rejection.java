package dev.sluice.limiter.headers;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Unavailable;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.snapshot.Outcome;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Which HTTP status and RFC 9457 problem answer a request the server half did not let through (SPEC §3.4):
 * the one place that says so, for the edge (its limiter answers, the shedder, a fail-closed store, a passed
 * deadline) and for the simulator's server, so both write the same status, problem code and
 * {@code Retry-After} rule.
 *
 * <table>
 *   <caption>status and problem per rejection</caption>
 *   <tr><th>rejection</th><th>status</th><th>problem code</th><th>Retry-After</th><th>from</th></tr>
 *   <tr><td>{@link #RATE_LIMITED}</td><td>429</td><td>{@code rate_limited}</td><td>yes</td><td>a burst or
 *       concurrency policy's {@link Denied}</td></tr>
 *   <tr><td>{@link #QUOTA_EXHAUSTED}</td><td>429</td><td>{@code quota_exhausted}</td><td>yes (to the window's
 *       reset)</td><td>a quota policy's {@link Denied}</td></tr>
 *   <tr><td>{@link #COST_EXCEEDS_BURST}</td><td>400</td><td>{@code cost_exceeds_burst}</td><td>no: waiting
 *       cannot help (SPEC §3.10)</td><td>{@link CostExceedsBurst}</td></tr>
 *   <tr><td>{@link #OVERLOADED}</td><td>503</td><td>{@code overloaded}</td><td>yes</td><td>{@link Unavailable}
 *       (a shared store failing closed, SPEC §3.14), shedding and passed deadlines (SPEC §3.9)</td></tr>
 * </table>
 * A 503 is never a quota matter (the client backs off, it does not stop: SPEC §3.4), which is why shedding
 * and a store outage share it. The problem code is also the {@link Outcome} wire name a client reads back.
 */
public enum Rejection {
    /** A burst (or concurrency) policy refused: 429 {@code rate_limited}. */
    RATE_LIMITED(429, Outcome.RATE_LIMITED, "Too many requests", true),
    /** A quota policy refused: 429 {@code quota_exhausted}. */
    QUOTA_EXHAUSTED(429, Outcome.QUOTA_EXHAUSTED, "Quota used up", true),
    /** The request costs more than a policy's {@code q}: 400 {@code cost_exceeds_burst}, no Retry-After. */
    COST_EXCEEDS_BURST(400, null, "Request costs more than the limit allows", false),
    /** No capacity (shed, deadline passed, store failing closed): 503 {@code overloaded}. */
    OVERLOADED(503, Outcome.OVERLOADED, "Overloaded", true);

    private final int status;
    private final String code;
    private final String title;
    private final boolean retryAfter;

    Rejection(int status, @Nullable Outcome outcome, String title, boolean retryAfter) {
        this.status = status;
        this.code = outcome == null ? "cost_exceeds_burst" : outcome.wireName();
        this.title = title;
        this.retryAfter = retryAfter;
    }

    /** The rejection of {@code decision}; empty for {@link Allowed}. */
    public static Optional<Rejection> of(Decision decision) {
        return Optional.ofNullable(switch (decision) {
            case Allowed a -> null;
            case Denied d -> of(d);
            case CostExceedsBurst c -> COST_EXCEEDS_BURST;
            case Unavailable u -> OVERLOADED;
        });
    }

    /** The rejection of a denial: {@link #QUOTA_EXHAUSTED} when a quota policy denied, else {@link #RATE_LIMITED}. */
    public static Rejection of(Denied denied) {
        return denied.outcome() == Outcome.QUOTA_EXHAUSTED ? QUOTA_EXHAUSTED : RATE_LIMITED;
    }

    /** The HTTP status: 429, 400 or 503. */
    public int status() {
        return status;
    }

    /** The problem type's code, the last segment of {@code type}: {@code rate_limited}, ... */
    public String code() {
        return code;
    }

    /** The problem's default {@code title}. */
    public String title() {
        return title;
    }

    /** Whether the answer carries {@code Retry-After} (and {@code retry_after_s}). */
    public boolean hasRetryAfter() {
        return retryAfter;
    }

    /**
     * A problem of this rejection: {@code type} = {@code typeUri}, this {@link #title()} and {@link #status()};
     * the caller adds {@code detail}, {@code limit}, {@code violated-policies} and {@code retry_after_s}.
     *
     * @param typeUri the type URI ({@code <base-uri>/errors/<code>}, or an IANA type)
     */
    public ProblemDetails.Builder problem(String typeUri) {
        return ProblemDetails.builder().type(typeUri).title(title).status(status);
    }
}
