package dev.sluice.wire.dialect;

import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decides the {@link Outcome} of a response from its status, the matched dialect's verdict, its
 * problem details and its policies (SPEC §1, §3.4, §4.2). In order:
 * <ol>
 *   <li>1xx–3xx: {@code ok}, whatever the headers say (a 200 with {@code r=0} was still served).</li>
 *   <li>503 and 529: {@code overloaded} (R09: never a quota matter).</li>
 *   <li>Any other 5xx: {@code server_error}, or {@code overloaded} when the dialect says so.</li>
 *   <li>A 4xx: the dialect's own verdict, when it gave one; but {@code overloaded} only when the
 *       body says in words that shared capacity is short ("overloaded", "over capacity", "high
 *       demand", ...): a 4xx is addressed to the caller.</li>
 *   <li>429 and 420 are limits. 400, 402, 403 and 422 are limits only with evidence: a problem
 *       type that says so, a vendor code or phrase of the {@link ErrorCodeTable}, an exhausted
 *       policy, a {@code Retry-After}, or an error text in the words servers use ("rate limit",
 *       "too fast", ...). Otherwise {@code client_error} / {@code server_error}.</li>
 *   <li>Which limit: a problem type code ({@code rate_limited}, {@code quota_exhausted},
 *       {@code out-of-credit}, {@code abnormal-usage-detected}, ...); else the kind of the
 *       {@link ErrorCodeTable} row the body matched; else, on a 429, {@code overloaded} when the
 *       body says shared capacity is short; else the kind of the policy
 *       the server named ({@code limit}, {@code violated-policies}) or, failing that, of an
 *       exhausted policy; else a draft-11 {@code quota-exceeded} type; else {@code rate_limited}.</li>
 * </ol>
 */
final class OutcomeRules {

    private OutcomeRules() {
    }

    static Outcome classify(DialectInput in, @Nullable DialectReading reading, List<PolicySnapshot> policies,
            List<String> violated, boolean retryHint) {
        int status = in.status();
        if (status < 400) {
            return Outcome.OK;
        }
        if (status == 503 || status == 529) {
            return Outcome.OVERLOADED;
        }
        Outcome verdict = reading == null ? null : reading.outcome();
        if (status >= 500) {
            // a 5xx is the server's trouble; only "overloaded" (Anthropic's overloaded_error) refines it
            return verdict == Outcome.OVERLOADED ? Outcome.OVERLOADED : Outcome.SERVER_ERROR;
        }
        if (verdict == Outcome.OVERLOADED && !Signals.saysCapacityShort(in.body())) {
            verdict = null; // a 4xx is addressed to the caller unless it says shared capacity is short
        }
        if (verdict != null && verdict != Outcome.OK) {
            return verdict;
        }
        ProblemDetails problem = in.problem().orElse(null);
        ErrorCodeTable.Match code = in.errorCode().orElse(null);
        Outcome byType = problem == null ? null : byProblemType(problem.typeCode());
        boolean limitStatus = status == 429 || status == 420;
        boolean maybeLimit = status == 400 || status == 402 || status == 403 || status == 422;
        if (!limitStatus) {
            boolean evidence = maybeLimit && (byType != null
                    || code != null
                    || (problem != null && weakQuotaType(problem.typeCode()))
                    || policies.stream().anyMatch(PolicySnapshot::isExhausted)
                    || retryHint
                    || Signals.saysRateLimited(in.body())
                    || Signals.saysQuotaSpent(in.body()));
            if (!evidence) {
                return Outcome.CLIENT_ERROR;
            }
        }
        if (byType != null) {
            return byType;
        }
        if (code != null) {
            return code.kind();
        }
        if (limitStatus && Signals.saysCapacityShort(in.body())) {
            return Outcome.OVERLOADED;
        }
        PolicyKind named = kindOfNamed(violated, policies);
        if (named == PolicyKind.QUOTA) {
            return Outcome.QUOTA_EXHAUSTED;
        }
        if (named == PolicyKind.BURST) {
            return Outcome.RATE_LIMITED;
        }
        for (PolicySnapshot p : policies) {
            if (p.isExhausted() && p.kind() == PolicyKind.QUOTA) {
                return Outcome.QUOTA_EXHAUSTED;
            }
        }
        if (problem != null && weakQuotaType(problem.typeCode())) {
            return Outcome.QUOTA_EXHAUSTED;
        }
        if (!limitStatus && Signals.saysQuotaSpent(in.body()) && !Signals.saysRateLimited(in.body())) {
            return Outcome.QUOTA_EXHAUSTED;
        }
        return Outcome.RATE_LIMITED;
    }

    /**
     * The outcome a problem type code decides on its own: Sluice's codes (SPEC §3.4) and the
     * draft-11 IANA codes other than {@code quota-exceeded}, which Sluice's edge may send for both
     * kinds of 429 and is therefore decided by the policy it names.
     */
    static @Nullable Outcome byProblemType(@Nullable String code) {
        if (code == null) {
            return null;
        }
        return switch (code) {
            case "quota_exhausted", "quota-exhausted", "insufficient_quota", "out-of-credit",
                    "out_of_credit", "insufficient-credit", "credits-exhausted" -> Outcome.QUOTA_EXHAUSTED;
            case "rate_limited", "rate-limited", "too-many-requests", "too_many_requests",
                    "abnormal-usage-detected", "rate-limit-exceeded", "rate_limit_exceeded" -> Outcome.RATE_LIMITED;
            case "overloaded", "temporary-reduced-capacity" -> Outcome.OVERLOADED;
            default -> null;
        };
    }

    /** {@code quota-exceeded} and its spellings: a quota unless the named policy says burst. */
    static boolean weakQuotaType(@Nullable String code) {
        return code != null && (code.equals("quota-exceeded") || code.equals("quota_exceeded")
                || code.equals("quotaexceeded"));
    }

    /** QUOTA if any named policy is a quota policy, BURST if all known ones are burst, else UNKNOWN. */
    private static PolicyKind kindOfNamed(List<String> violated, List<PolicySnapshot> policies) {
        boolean anyBurst = false;
        for (String name : violated) {
            PolicyKind k = PolicyKind.fromName(name);
            for (PolicySnapshot p : policies) {
                if (name.equals(p.name()) && p.kind() != PolicyKind.UNKNOWN) {
                    k = p.kind();
                    break;
                }
            }
            if (k == PolicyKind.QUOTA) {
                return PolicyKind.QUOTA;
            }
            anyBurst |= k == PolicyKind.BURST;
        }
        return anyBurst ? PolicyKind.BURST : PolicyKind.UNKNOWN;
    }
}
