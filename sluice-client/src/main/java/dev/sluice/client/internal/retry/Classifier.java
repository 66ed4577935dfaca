package dev.sluice.client.internal.retry;

import dev.sluice.client.ClientErrorException;
import dev.sluice.client.CostExceedsBurstException;
import dev.sluice.client.IdempotencyConflictException;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.ServerErrorException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.TransportException;
import dev.sluice.client.core.Answer;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Classifies one answer (SPEC §4.2). A pure function of the answer, whether the call is safe to
 * repeat, the attempt count and the wall clock (only to turn a relative reset into an instant).
 *
 * <table>
 *   <caption>Rules</caption>
 *   <tr><th>answer</th><th>classification</th></tr>
 *   <tr><td>ok (1xx–3xx)</td><td>success</td></tr>
 *   <tr><td>quota_exhausted, or rate_limited naming / showing a spent quota policy</td><td>terminal
 *       {@link QuotaExceededException} (R08)</td></tr>
 *   <tr><td>rate_limited</td><td>retry after {@link RateLimitSnapshot#suggestedWait(Duration)} (Retry-After,
 *       the reset of the denying policy, + the margin for an absolute reset, R04), else full jitter</td></tr>
 *   <tr><td>overloaded (503, 529)</td><td>retry after the suggested wait or full jitter; never quota (R09)</td></tr>
 *   <tr><td>409 idempotency conflict</td><td>terminal {@link IdempotencyConflictException}; but a 409 with a
 *       Retry-After on a keyed call is "the first attempt is still in flight" (SPEC §3.11): retry</td></tr>
 *   <tr><td>400 cost_exceeds_burst</td><td>terminal {@link CostExceedsBurstException}</td></tr>
 *   <tr><td>408</td><td>retry (the server did not act on it)</td></tr>
 *   <tr><td>other 4xx</td><td>terminal {@link ClientErrorException}</td></tr>
 *   <tr><td>other 5xx</td><td>retry if safe to repeat, else terminal {@link ServerErrorException}</td></tr>
 *   <tr><td>connect failure (nothing sent)</td><td>retry</td></tr>
 *   <tr><td>timeout / reset after sending</td><td>retry if safe to repeat, else terminal
 *       {@link TransportException} with outcome unknown (R07a)</td></tr>
 * </table>
 *
 * <p>Every hint comes from {@link RateLimitSnapshot#suggestedWait(Duration)} with the configured
 * reset margin: the same definition of "how long to wait" that {@code sluice explain} prints
 * (cached responses' policies ignored and their Retry-After reduced by Age, SPEC §2.5; never shorter
 * than any hint, SPEC §2.4).
 *
 * <p>"Safe to repeat" = an idempotent method, or an Idempotency-Key is set (SPEC §4.2). Thread-safe.
 */
public final class Classifier {

    private final Duration resetMargin;

    public Classifier(Duration resetMargin) {
        this.resetMargin = resetMargin;
    }

    public Classification classify(Answer answer, boolean safeToRepeat, int attempts, Instant wallNow) {
        return switch (answer) {
            case Answer.Response r -> response(r.snapshot(), r.problemType(), safeToRepeat, attempts, wallNow);
            case Answer.Failure f -> failure(f, safeToRepeat, attempts);
        };
    }

    private Classification response(RateLimitSnapshot s, @Nullable String problemType, boolean safe, int attempts,
            Instant wallNow) {
        int status = s.status();
        return switch (s.outcome()) {
            case OK -> new Classification.Success(status);
            case QUOTA_EXHAUSTED -> quota(s, attempts, wallNow);
            case RATE_LIMITED -> {
                if (spentQuotaPolicy(s) != null) {
                    yield quota(s, attempts, wallNow);
                }
                Duration hint = hint(s);
                yield new Classification.Retryable(Classification.Kind.RATE_LIMITED, hint, false,
                        (why, refusal) -> new RateLimitedException(status + " rate_limited: " + why, hint, status, s,
                                attempts, refusal));
            }
            case OVERLOADED -> {
                Duration hint = hint(s);
                yield new Classification.Retryable(Classification.Kind.OVERLOADED, hint, false,
                        (why, refusal) -> new OverloadedException(status + " overloaded: " + why, hint, status, s,
                                attempts, refusal));
            }
            case CLIENT_ERROR -> clientError(s, problemType, safe, attempts);
            case SERVER_ERROR -> {
                if (safe) {
                    yield new Classification.Retryable(Classification.Kind.TRANSIENT, hint(s), true,
                            (why, refusal) -> new ServerErrorException(status + " server error: " + why, status, s,
                                    attempts, refusal));
                }
                yield new Classification.Terminal(new ServerErrorException(status
                        + " server error; not retried: the call is not safe to repeat (no idempotent method,"
                        + " no Idempotency-Key)", status, s, attempts), true);
            }
        };
    }

    private Classification clientError(RateLimitSnapshot s, @Nullable String problemType, boolean safe, int attempts) {
        int status = s.status();
        String code = problemCode(problemType);
        boolean inFlightDuplicate = status == 409 && s.retryAfter() != null
                && (code.contains("idempotency") || code.isEmpty());
        if (status == 409 && (code.contains("idempotency") || inFlightDuplicate)) {
            if (inFlightDuplicate && safe) {
                Duration hint = hint(s);
                return new Classification.Retryable(Classification.Kind.TRANSIENT, hint, true,
                        (why, refusal) -> new IdempotencyConflictException(
                                "409: the first attempt with this Idempotency-Key is still in flight; " + why,
                                status, s, attempts, refusal));
            }
            return new Classification.Terminal(new IdempotencyConflictException(
                    "409 idempotency_conflict: the Idempotency-Key was used with a different request body",
                    status, s, attempts), true);
        }
        if (status == 400 && (code.contains("cost_exceeds") || code.contains("cost-exceeds"))) {
            return new Classification.Terminal(new CostExceedsBurstException(
                    "400 cost_exceeds_burst: the call costs more than the burst can ever hold; split it",
                    status, s, attempts), true);
        }
        if (status == 408) {
            return new Classification.Retryable(Classification.Kind.TRANSIENT, hint(s), true,
                    (why, refusal) -> new ClientErrorException("408 request timeout: " + why, status, s, attempts,
                            refusal));
        }
        return new Classification.Terminal(new ClientErrorException(
                status + " client error" + (code.isEmpty() ? "" : " (" + code + ")"), status, s, attempts), true);
    }

    private Classification failure(Answer.Failure f, boolean safe, int attempts) {
        if (f.kind() == Answer.FailureKind.NOT_SENT) {
            return new Classification.Retryable(Classification.Kind.TRANSIENT, null, false,
                    (why, refusal) -> withRefusal(new TransportException("connection failed before sending: " + why,
                            f.cause(), false, attempts), refusal));
        }
        String what = f.kind() == Answer.FailureKind.TIMEOUT ? "timed out" : "connection lost";
        if (safe) {
            return new Classification.Retryable(Classification.Kind.TRANSIENT, null, false,
                    (why, refusal) -> withRefusal(new TransportException(what + " after sending: " + why, f.cause(),
                            true, attempts), refusal));
        }
        return new Classification.Terminal(new TransportException(what
                + " after sending; outcome unknown, not retried: the call is not safe to repeat"
                + " (no idempotent method, no Idempotency-Key)", f.cause(), true, attempts), false);
    }

    private Classification quota(RateLimitSnapshot s, int attempts, Instant wallNow) {
        PolicySnapshot spent = spentQuotaPolicy(s);
        String policy = s.violatedPolicy() != null ? s.violatedPolicy() : spent == null ? null : spent.name();
        Instant resetAt = s.quotaResetAt();
        if (resetAt == null && s.retryAfterAtReceipt() != null) {
            resetAt = wallNow.plus(s.retryAfterAtReceipt());
        }
        if (resetAt == null && spent != null && spent.resetIn() != null) {
            resetAt = wallNow.plus(spent.resetIn());
        }
        String msg = s.status() + " quota_exhausted" + (policy == null ? "" : " (policy \"" + policy + "\")")
                + (resetAt == null ? "" : "; resets at " + resetAt) + "; not retried";
        return new Classification.Terminal(
                new QuotaExceededException(msg, policy, resetAt, s.status(), s, attempts), false);
    }

    /**
     * A transport error's cause is the I/O failure itself; a budget's refusal rides along as a
     * suppressed exception.
     */
    private static TransportException withRefusal(TransportException e, @Nullable SluiceException refusal) {
        if (refusal != null) {
            e.addSuppressed(refusal);
        }
        return e;
    }

    /** The named or spent quota policy of a limit answer, or {@code null}. */
    static @Nullable PolicySnapshot spentQuotaPolicy(RateLimitSnapshot s) {
        for (PolicySnapshot p : s.policies()) {
            if (p.kind() != PolicyKind.QUOTA) {
                continue;
            }
            boolean named = s.violatedPolicy() != null && s.violatedPolicy().equals(p.name());
            boolean spent = p.remaining() != null && p.remaining() == 0;
            if (named || spent) {
                return p;
            }
        }
        return null;
    }

    /**
     * The wait the answer asks for: {@link RateLimitSnapshot#suggestedWait(Duration)} with the
     * configured margin (Retry-After; else the reset of the named, spent, or only policy with a
     * reset; R04's margin on absolute resets); {@code null} when none applies: full-jitter backoff.
     */
    @Nullable Duration hint(RateLimitSnapshot s) {
        return s.suggestedWait(resetMargin).orElse(null);
    }

    /** The problem type's last path segment or fragment, lower case; empty when there is none. */
    static String problemCode(@Nullable String problemType) {
        if (problemType == null) {
            return "";
        }
        String t = problemType.strip();
        int cut = Math.max(t.lastIndexOf('/'), t.lastIndexOf('#'));
        return t.substring(cut + 1).toLowerCase(Locale.ROOT);
    }
}
