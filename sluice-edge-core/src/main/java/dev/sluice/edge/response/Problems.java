package dev.sluice.edge.response;

import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.headers.Rejection;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.retryafter.RetryAfter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The edge's own error responses: RFC 9457 {@code application/problem+json} bodies (written by
 * {@link ProblemDetails}) with the fields SPEC §3.4 and §3.5 require.
 *
 * <ul>
 *   <li>{@code type} is {@code <base-uri>/errors/<code>} (or an IANA draft-11 type, see
 *       {@link ProblemConfig.TypeUris}); {@code title}, {@code status}, {@code detail};</li>
 *   <li>rate-limit problems add {@code limit} (the denying policy), {@code retry_after_s} (equal to
 *       the {@code Retry-After} header) and {@code violated-policies};</li>
 *   <li>every 429 and 503 carries {@code Retry-After} in delay-seconds, ≥ 1 (SPEC §2.3; R02), and
 *       every problem carries {@code Cache-Control: no-store} (SPEC §3.5; R19).</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class Problems {

    /** The IANA type of both 429 kinds (draft-ietf-httpapi-ratelimit-headers-11 §10.4). */
    public static final String IANA_QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    /** The IANA type of the escalation stage's block of a key in a retry loop (draft-11 §10.4; SPEC §3.12). */
    public static final String IANA_ABNORMAL_USAGE_DETECTED =
            "https://iana.org/assignments/http-problem-types#abnormal-usage-detected";
    /** The IANA type of the shedder's 503 (draft-11 §10.4). */
    public static final String IANA_TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    private static final Header CONTENT_TYPE = new Header("Content-Type", ProblemDetails.MEDIA_TYPE);
    private static final Header NO_STORE = new Header("Cache-Control", "no-store");

    /** At most this many distinct answers are remembered; the memo starts over beyond (a flood of unique details). */
    static final int MAX_MEMOISED = 4096;

    private final ProblemConfig config;
    /**
     * Answers already serialised, keyed by everything they are made of (status, the whole body value, the
     * Retry-After): a key rejected again and again gets the same bytes without building them again. The
     * bodies are never written to (the transports wrap them read-only).
     */
    private final ConcurrentHashMap<Memo, EdgeResponse> memo = new ConcurrentHashMap<>();

    private record Memo(int status, ProblemDetails body, long retryAfterSeconds) {}

    public Problems(ProblemConfig config) {
        this.config = config;
    }

    /** The {@code type} URI for {@code code} ({@code rate_limited}, ...): {@code <base-uri>/errors/<code>}. */
    public String type(String code) {
        if (config.types() == ProblemConfig.TypeUris.IANA) {
            switch (code) {
                case "rate_limited", "quota_exhausted" -> {
                    return IANA_QUOTA_EXCEEDED;
                }
                case "overloaded" -> {
                    return IANA_TEMPORARY_REDUCED_CAPACITY;
                }
                case "retry_loop_blocked" -> {
                    return IANA_ABNORMAL_USAGE_DETECTED;
                }
                default -> { }
            }
        }
        return config.baseUri() + "/errors/" + code;
    }

    /**
     * The 429 of a limiter denial (SPEC §3.4): {@code rate_limited} when a burst policy denied,
     * {@code quota_exhausted} when a quota policy did. {@code Retry-After} and {@code retry_after_s}
     * both equal {@link Denied#retryAfterSeconds()}, which is also the denying policy's {@code t} in
     * the {@code RateLimit} field the caller adds.
     *
     * @param costs what the request would have charged (named in the detail when not 1)
     */
    public EdgeResponse denied(Denied denied, Costs costs) {
        Policy p = denied.policy();
        long retryAfter = denied.retryAfterSeconds();
        Rejection rejection = Rejection.of(denied);
        String title;
        String detail;
        if (p instanceof QuotaPolicy q) {
            title = periodName(q, true) + " quota used up";
            long used = usedOf(denied.states(), p);
            detail = number(used) + " of " + number(q.quota()) + " " + unitWord(q.unit()) + " used "
                    + periodName(q, false) + " (" + planName(denied.plan()) + " plan)."
                    + costNote(costs, p);
        } else if (p instanceof ConcurrencyPolicy c) {
            title = "Too many requests in flight";
            detail = "At most " + number(c.quota()) + " requests in flight at once (" + planName(denied.plan())
                    + " plan); retry when one has finished.";
        } else {
            BurstPolicy b = (BurstPolicy) p;
            title = "Too many requests";
            detail = "Burst limit of " + number(b.quota()) + " " + unitWord(b.unit()) + " per "
                    + seconds(b.windowSeconds()) + " reached (" + planName(denied.plan()) + " plan)."
                    + costNote(costs, p);
        }
        List<String> violated = new ArrayList<>(denied.violated().size());
        denied.violated().forEach(v -> violated.add(v.name()));
        ProblemDetails body = rejection.problem(type(rejection.code())).title(title).detail(detail)
                .limit(p.name()).retryAfterSeconds(retryAfter).violatedPolicies(violated).build();
        return problem(rejection.status(), body, retryAfter);
    }

    /**
     * The 400 {@code cost_exceeds_burst} (SPEC §3.10; R14a): the request can never fit, so there is
     * no {@code Retry-After} (waiting cannot help).
     */
    public EdgeResponse costExceedsBurst(CostExceedsBurst c) {
        Policy p = c.policy();
        String detail = "This request costs " + number(c.cost()) + " " + unitWord(p.unit()) + " but policy \""
                + p.name() + "\" allows at most " + number(p.quota()) + " (" + planName(c.plan())
                + " plan); split the request.";
        Rejection r = Rejection.COST_EXCEEDS_BURST;
        ProblemDetails body = r.problem(type(r.code())).detail(detail).limit(p.name()).extension("cost", c.cost())
                .build();
        return problem(r.status(), body, 0);
    }

    /**
     * The 429 of an anonymous route (SPEC §3.7): generic on purpose. No policy name, no remaining
     * count; {@code Retry-After} is the longest burst window of the anonymous plan (or the denial's
     * wait when that is longer), so it is honest without telling a script how to pace itself.
     */
    public EdgeResponse anonymousDenied(Plan anonymousPlan, Denied denied) {
        long wait = denied.retryAfterSeconds();
        for (Policy p : anonymousPlan.policies()) {
            if (p instanceof BurstPolicy b) {
                wait = Math.max(wait, b.windowSeconds());
            }
        }
        Rejection r = Rejection.RATE_LIMITED; // quota or burst: an anonymous caller is told no more than this
        ProblemDetails body = r.problem(type(r.code())).detail("Too many requests from this address. Try again later.")
                .build();
        return problem(r.status(), body, wait);
    }

    /**
     * What a 401's {@code WWW-Authenticate: Bearer} challenge says about the credential (RFC 6750 §3.1).
     */
    public enum BearerError {
        /**
         * The request carried no bearer credential (no {@code Authorization}, or another scheme): the
         * challenge carries no error code (RFC 6750 §3.1).
         */
        NONE(null),
        /** A {@code Bearer} credential that is malformed, or more than one: {@code invalid_request}. */
        INVALID_REQUEST("invalid_request"),
        /** A well-formed token that is not a known key: {@code invalid_token}. */
        INVALID_TOKEN("invalid_token");

        private final String code;

        BearerError(String code) {
            this.code = code;
        }

        /** The challenge's {@code error} value, or {@code null} for none. */
        public String code() {
            return code;
        }
    }

    /**
     * 401 {@code unauthenticated}: no usable {@code Authorization: Bearer} credential (RFC 6750 §3). The
     * {@code WWW-Authenticate} challenge names the realm and, unless {@code error} is
     * {@link BearerError#NONE}, the error code.
     */
    public EdgeResponse unauthenticated(BearerError error, String detail) {
        ProblemDetails body = ProblemDetails.builder().type(type("unauthenticated")).title("Unauthenticated")
                .status(401).detail(detail).build();
        EdgeResponse r = problem(401, body, 0);
        String challenge = error.code() == null ? "Bearer realm=\"api\""
                : "Bearer realm=\"api\", error=\"" + error.code() + "\"";
        return r.withHeaders(List.of(new Header("WWW-Authenticate", challenge)));
    }

    /** A 4xx or 5xx problem without limit members: {@code bad_request}, {@code upstream_timeout}, ... */
    public EdgeResponse plain(int status, String code, String title, String detail) {
        ProblemDetails body = ProblemDetails.builder().type(type(code)).title(title).status(status).detail(detail)
                .build();
        return problem(status, body, 0);
    }

    /**
     * 503 {@code overloaded} (SPEC §3.4, §3.9): for the shedder stage; never charged to any policy.
     *
     * @param retryAfter the back-off to advertise, rounded up to whole seconds, ≥ 1
     */
    public EdgeResponse overloaded(Duration retryAfter, String detail) {
        long seconds = RetryAfter.delaySeconds(retryAfter);
        Rejection r = Rejection.OVERLOADED;
        ProblemDetails body = r.problem(type(r.code())).detail(detail).retryAfterSeconds(seconds).build();
        return problem(r.status(), body, seconds);
    }

    /**
     * 503 {@code idempotency_store_unavailable} (SPEC §3.11): a request with an {@code Idempotency-Key}
     * cannot be checked against its record, and forwarding it blindly could carry it out twice. Not charged;
     * the client retries with the same key after {@code Retry-After}.
     *
     * @param retryAfter the back-off to advertise, rounded up to whole seconds, ≥ 1
     */
    public EdgeResponse idempotencyStoreUnavailable(Duration retryAfter) {
        long seconds = RetryAfter.delaySeconds(retryAfter);
        ProblemDetails body = ProblemDetails.builder().type(type("idempotency_store_unavailable"))
                .title("Idempotency records unavailable").status(503)
                .detail("The API cannot check this Idempotency-Key right now, so the request was not carried out; "
                        + "retry with the same Idempotency-Key after " + seconds + " s.")
                .retryAfterSeconds(seconds).build();
        return problem(503, body, seconds);
    }

    /**
     * 503 {@code key_store_unavailable}: the bearer token is not in the edge's key cache and the key store
     * cannot be asked right now (down, or the budget of lookups of unknown tokens is spent), so the key can
     * be neither admitted nor refused. Not charged; the client retries after {@code Retry-After}.
     *
     * @param retryAfter the back-off to advertise, rounded up to whole seconds, ≥ 1
     */
    public EdgeResponse keyStoreUnavailable(Duration retryAfter) {
        long seconds = RetryAfter.delaySeconds(retryAfter);
        ProblemDetails body = ProblemDetails.builder().type(type("key_store_unavailable"))
                .title("Key store unavailable").status(503)
                .detail("The API cannot check this API key right now; retry after " + seconds + " s.")
                .retryAfterSeconds(seconds).build();
        return problem(503, body, seconds);
    }

    /**
     * 429 of the escalation stage (SPEC §3.12): a key whose requests keep arriving inside its own
     * Retry-After window is told to wait longer ({@code rate_limited}, {@code blocked} false) or is
     * blocked for a while ({@code retry_loop_blocked}; the draft-11 {@code abnormal-usage-detected} type
     * under {@code problem.types: iana}). Honest: {@code Retry-After} is when the key is answered again.
     *
     * @param retryAfterSeconds when the key's requests are decided again, ≥ 1
     */
    public EdgeResponse escalated(boolean blocked, long retryAfterSeconds, String detail) {
        return escalated(blocked, retryAfterSeconds, detail, null, List.of());
    }

    /**
     * As {@link #escalated(boolean, long, String)}, with the rate-limit members of the key's last denial
     * (SPEC §3.4): {@code limit} (the policy the hold is reported under, whose {@code RateLimit} member the
     * caller sets to {@code t} = {@code retryAfterSeconds}) and {@code violated-policies}.
     *
     * @param limit the denying policy's name, or {@code null} for none
     * @param violated the names of the policies that refused, in plan order
     */
    public EdgeResponse escalated(boolean blocked, long retryAfterSeconds, String detail, String limit,
            List<String> violated) {
        String code = blocked ? "retry_loop_blocked" : "rate_limited";
        ProblemDetails.Builder b = ProblemDetails.builder().type(type(code))
                .title(blocked ? "Temporarily blocked: retry loop" : "Too many retries")
                .status(429).detail(detail);
        if (limit != null) {
            b.limit(limit);
        }
        b.retryAfterSeconds(retryAfterSeconds);
        if (!violated.isEmpty()) {
            b.violatedPolicies(violated);
        }
        return problem(429, b.build(), retryAfterSeconds);
    }

    /**
     * 409 for an {@code Idempotency-Key} (SPEC §3.4, §3.11): {@code idempotency_conflict} (another request
     * used the key: a client bug, no Retry-After), or, with {@code inFlight}, {@code idempotency_in_flight}
     * with {@code Retry-After: 1} (the first request is still running; retry shortly).
     */
    public EdgeResponse idempotencyConflict(boolean inFlight, String detail) {
        String code = inFlight ? "idempotency_in_flight" : "idempotency_conflict";
        ProblemDetails.Builder b = ProblemDetails.builder().type(type(code))
                .title(inFlight ? "Request with this Idempotency-Key in progress" : "Idempotency-Key reused")
                .status(409).detail(detail);
        if (inFlight) {
            b.retryAfterSeconds(1);
        }
        EdgeResponse r = problem(409, b.build(), 0);
        return inFlight ? r.withHeaders(List.of(new Header(RetryAfter.FIELD, "1"))) : r;
    }

    private EdgeResponse problem(int status, ProblemDetails body, long retryAfterSeconds) {
        Memo key = new Memo(status, body, retryAfterSeconds);
        EdgeResponse known = memo.get(key);
        if (known != null) {
            return known;
        }
        EdgeResponse built = build(status, body, retryAfterSeconds);
        if (memo.size() >= MAX_MEMOISED) {
            memo.clear();
        }
        memo.put(key, built);
        return built;
    }

    private static EdgeResponse build(int status, ProblemDetails body, long retryAfterSeconds) {
        List<Header> headers = new ArrayList<>(4);
        headers.add(CONTENT_TYPE);
        headers.add(NO_STORE);
        if (status == 429 || status == 503) {
            // delay-seconds only (SPEC §2.3); callers pass the limiter's ceiling, never < 1 (R02)
            headers.add(new Header(RetryAfter.FIELD, Long.toString(Math.max(1, retryAfterSeconds))));
        }
        return new EdgeResponse(status, headers, body.toJsonBytes());
    }

    private static long usedOf(List<PolicyState> states, Policy p) {
        for (PolicyState s : states) {
            if (s.policy().equals(p)) {
                return s.used();
            }
        }
        return p.quota();
    }

    private static String costNote(Costs costs, Policy p) {
        long cost = costs.costFor(p);
        return cost == 1 ? "" : " This request costs " + number(cost) + ".";
    }

    private static String periodName(QuotaPolicy q, boolean title) {
        boolean daily = q.window() instanceof CalendarWindow.Daily;
        if (title) {
            return daily ? "Daily" : "Monthly";
        }
        return daily ? "today" : "this month";
    }

    private static String unitWord(QuotaUnit unit) {
        return unit == QuotaUnit.CONTENT_BYTES ? "bytes" : "requests";
    }

    private static String planName(Plan plan) {
        String n = plan.name();
        return n.isEmpty() ? n : n.substring(0, 1).toUpperCase(Locale.ROOT) + n.substring(1);
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String seconds(long s) {
        return s == 1 ? "second" : number(s) + " seconds";
    }
}
