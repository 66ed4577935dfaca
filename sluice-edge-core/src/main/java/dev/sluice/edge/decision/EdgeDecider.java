package dev.sluice.edge.decision;

import dev.sluice.edge.keys.KeyLookup;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.response.LimitFields;
import dev.sluice.edge.response.UsageReport;
import dev.sluice.edge.route.Route;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.headers.Rejection;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.StoreUnavailableException;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The edge's decision (SPEC §3.1–§3.8, §3.10): a function of the request head, the limiter state and
 * the time, with no I/O of its own (DESIGN.md "Seams": the Netty code only moves bytes and calls
 * this). It
 * <ol>
 *   <li>matches the route (method + path pattern);</li>
 *   <li>identifies the caller: on an anonymous route the client IP (SPEC §3.7), otherwise the
 *       {@code Authorization: Bearer} key — missing, malformed or unknown is a 401 and creates no
 *       limiter state;</li>
 *   <li>prices the request: the route cost, and {@code Content-Length} for content-bytes policies;</li>
 *   <li>answers {@code GET /v1/usage} from {@link LimiterStore#usageAsync} without charging (§3.6);</li>
 *   <li>runs the {@link EdgeStage}s, ending with the limiter: one
 *       {@link LimiterStore#decideAsync} covering every policy of the plan (§3.3), turned into a 429,
 *       a 400 {@code cost_exceeds_burst}, or a {@link Verdict.Forward} carrying the response's
 *       rate-limit fields, the soft-limit warnings and the refund-on-503 hook (§3.9).</li>
 * </ol>
 * A route in dry-run never answers with a denial: it forwards with the fields the denial would have
 * shown, and the record counts the denial (SPEC §3.13a). A route with a {@code failure-mode} of its own
 * is decided by the store's {@link LimiterStore#withFailureMode} view: a shared store that cannot decide
 * answers it by that mode (SPEC §3.14).
 *
 * <p>The returned stage completes at once with the in-memory store; a network store completes it
 * later, possibly on another thread (SPEC §3.14) — callers must not assume either. Thread-safe; the
 * rules are swapped whole by {@link #update} on reload.
 */
public final class EdgeDecider {

    private static final String ANONYMOUS_KEY_PREFIX = "ip ";
    /** Retry-After of a usage read a fail-closed store could not answer (a decision carries its own). */
    private static final Duration UNAVAILABLE_RETRY_AFTER = Duration.ofSeconds(1);
    private static final CompletionStage<List<Header>> NO_FIELDS = CompletableFuture.completedFuture(List.of());

    private volatile EdgeRules rules;
    private final LimiterStore store;
    private final TimeSource time;
    private final List<EdgeStage> stages;
    /** where keys the file does not list are looked up; {@code null}: the file's keys only */
    private final KeySource keySource;
    private final ThrottledLog keyLog;

    /**
     * @param rules the compiled configuration
     * @param store where limiter state lives
     * @param time the clock of soft-limit events
     * @param stages the stages before the limiter, in order, possibly none (see {@link EdgeStage})
     */
    public EdgeDecider(EdgeRules rules, LimiterStore store, TimeSource time, List<EdgeStage> stages) {
        this(rules, store, time, stages, Optional.empty());
    }

    /**
     * @param keySource where a bearer token the file's {@code keys} do not list is looked up (a database,
     *     a Redis hash); empty: such a token is unknown (401)
     */
    public EdgeDecider(EdgeRules rules, LimiterStore store, TimeSource time, List<EdgeStage> stages,
            Optional<KeySource> keySource) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.store = Objects.requireNonNull(store, "store");
        this.time = Objects.requireNonNull(time, "time");
        this.stages = List.copyOf(stages);
        this.keySource = keySource.orElse(null);
        this.keyLog = new ThrottledLog(org.slf4j.LoggerFactory.getLogger("dev.sluice.edge.keys"), time, 6);
    }

    /** The rules in force. */
    public EdgeRules rules() {
        return rules;
    }

    /** Replaces the rules; requests already being decided keep the rules they started with. */
    public void update(EdgeRules newRules) {
        this.rules = Objects.requireNonNull(newRules, "newRules");
    }

    /** Decides one request from its head. Never completes exceptionally unless the store fails. */
    public CompletionStage<Verdict> decide(RequestHead head) {
        EdgeRules r = rules;
        Problems problems = r.problems();
        Route route = r.routes().match(head.method(), head.path());
        ContentLength.Result length = ContentLength.parse(head.contentLength());

        if (route.anonymous()) {
            Plan plan = r.anonymousPlan();
            if (length instanceof ContentLength.Invalid) {
                return answer(problems.plain(400, "bad_request", "Bad request", "The request cannot be read."),
                        new DecisionRecord(route.id(), plan.name(), DecisionOutcome.BAD_REQUEST, route.dryRun()));
            }
            Caller caller = new Caller.Anonymous(ANONYMOUS_KEY_PREFIX + route.id() + " " + head.clientAddress(), plan);
            return chain(r, new EdgeRequest(head, route, caller, costs(route, length)), 0);
        }

        Caller.ApiKey caller;
        switch (BearerCredential.parse(head.authorization())) {
            case BearerCredential.Missing m -> {
                return unauthenticated(problems, route, Problems.BearerError.NONE,
                        "This API needs an API key: send Authorization: Bearer <key>.");
            }
            case BearerCredential.Malformed m -> {
                // RFC 6750 §3.1: another scheme (Basic, ...) is a request without bearer credentials: no error code
                return unauthenticated(problems, route,
                        m.otherScheme() ? Problems.BearerError.NONE : Problems.BearerError.INVALID_REQUEST,
                        "The Authorization field is malformed (" + m.reason()
                                + "); send Authorization: Bearer <key>.");
            }
            case BearerCredential.Token t -> {
                caller = r.key(t.value());
                if (caller == null) {
                    if (keySource != null) {
                        return fromKeySource(r, head, route, length, t.value());
                    }
                    return unauthenticated(problems, route, Problems.BearerError.INVALID_TOKEN,
                            "The API key is not known.");
                }
            }
        }
        return decideKey(r, head, route, length, caller);
    }

    /**
     * A token the file does not list, looked up in the key source: a cached key goes on at once on this
     * thread; a miss goes on when the source answers (off the event loop); a source that cannot answer
     * gives 503 {@code key_store_unavailable}, nothing charged.
     */
    private CompletionStage<Verdict> fromKeySource(EdgeRules r, RequestHead head, Route route,
            ContentLength.Result length, String token) {
        CompletableFuture<KeyLookup> found = keySource.lookup(token);
        if (found.isDone()) {
            return afterLookup(r, head, route, length, found.join());
        }
        return found.thenCompose(lookup -> afterLookup(rules, head, route, length, lookup));
    }

    private CompletionStage<Verdict> afterLookup(EdgeRules r, RequestHead head, Route route,
            ContentLength.Result length, KeyLookup lookup) {
        return switch (lookup) {
            case KeyLookup.Found f -> {
                Caller.ApiKey caller = f.resolvedUnder(r);
                if (caller == null) {
                    caller = r.resolve(f.key());
                    if (caller == null) {
                        yield keyStoreUnavailable(r, route, Duration.ofSeconds(1),
                                "key " + f.key().keyId() + " names a plan or policy the configuration does not have");
                    }
                    f.remember(r, caller);
                }
                yield decideKey(r, head, route, length, caller);
            }
            case KeyLookup.Unknown u -> unauthenticated(r.problems(), route, Problems.BearerError.INVALID_TOKEN,
                    "The API key is not known.");
            case KeyLookup.Unavailable u -> keyStoreUnavailable(r, route, u.retryAfter(), u.reason());
        };
    }

    private CompletionStage<Verdict> keyStoreUnavailable(EdgeRules r, Route route, Duration retryAfter,
            String reason) {
        keyLog.warn("key store: {}", reason);
        return answer(r.problems().keyStoreUnavailable(retryAfter),
                new DecisionRecord(route.id(), DecisionRecord.NO_KEY, DecisionOutcome.UNAVAILABLE, false));
    }

    private CompletionStage<Verdict> decideKey(EdgeRules r, RequestHead head, Route route, ContentLength.Result length,
            Caller.ApiKey caller) {
        Problems problems = r.problems();
        String keyClass = caller.plan().name();
        if (length instanceof ContentLength.Invalid invalid) {
            return answerWithFields(r, route, caller, problems.plain(400, "bad_request", "Bad request",
                    invalid.reason() + "."), new DecisionRecord(route.id(), keyClass, DecisionOutcome.BAD_REQUEST,
                    route.dryRun()));
        }
        if (route.handler() == Route.Handler.USAGE) {
            return storeFor(route).usageAsync(caller.limiterKey(), caller.plan()).handle((states, error) -> {
                if (error == null) {
                    return new Verdict.Answer(UsageReport.response(enforcedPlan(caller.plan(), states), states,
                            r.softLimitPercent()),
                            new DecisionRecord(route.id(), keyClass, DecisionOutcome.USAGE, false));
                }
                if (unwrap(error) instanceof StoreUnavailableException) {
                    // a shared store failing closed cannot read the state: 503, as a decision would be
                    return new Verdict.Answer(r.problems().overloaded(UNAVAILABLE_RETRY_AFTER,
                            "The API is briefly unable to read limits; retry shortly."),
                            new DecisionRecord(route.id(), keyClass, DecisionOutcome.UNAVAILABLE, false));
                }
                throw error instanceof CompletionException ce ? ce : new CompletionException(error);
            });
        }
        if (length instanceof ContentLength.Absent && head.bodyExpected() && countsBytes(caller.plan())) {
            return answerWithFields(r, route, caller, problems.plain(411, "length_required", "Length required",
                    "This plan limits request bytes: send Content-Length."), new DecisionRecord(route.id(),
                    keyClass, DecisionOutcome.BAD_REQUEST, route.dryRun()));
        }
        return chain(r, new EdgeRequest(head, route, caller, costs(route, length)), 0);
    }

    private CompletionStage<Verdict> chain(EdgeRules r, EdgeRequest request, int index) {
        if (index == stages.size()) {
            return limit(r, request);
        }
        CompletionStage<Verdict> v = stages.get(index).apply(request, next -> chain(r, next, index + 1));
        return index == 0 && request.caller() instanceof Caller.ApiKey key
                ? v.thenCompose(x -> withFields(r, key, x)) : v;
    }

    /**
     * SPEC §2.2: every response to a key carries its fields. A stage's own answer (a shed 503, an
     * escalation 429, a replay, a 409) gets them from the limiter's state, uncharged, unless it has them.
     */
    private CompletionStage<Verdict> withFields(EdgeRules r, Caller.ApiKey key, Verdict v) {
        boolean needs = switch (v) {
            case Verdict.Answer a -> a.response().header(LimitFields.POLICY_FIELD).isEmpty();
            case Verdict.Replay rp -> rp.replay().header(LimitFields.POLICY_FIELD).isEmpty();
            case Verdict.Forward f -> false;
        };
        if (!needs || !r.rateLimitFields()) {
            return CompletableFuture.completedFuture(v);
        }
        return store.usageAsync(key.limiterKey(), key.plan()).thenApply(states -> {
            List<Header> fields = fields(r, enforcedPlan(key.plan(), states), states);
            return switch (v) {
                case Verdict.Answer a -> new Verdict.Answer(a.response().withHeaders(fields), a.record());
                case Verdict.Replay rp -> new Verdict.Replay(rp.bodySha256(), rp.replay().withHeaders(fields),
                        rp.record(), rp.conflict().withHeaders(fields), rp.conflictRecord());
                case Verdict.Forward f -> f;
            };
        });
    }

    /**
     * The plan {@code states} were read under: {@code plan}, or, when a shared store failing open answered
     * from its local share, the degraded plan ({@code ceil(q/N)}) it enforces, whose policies the states
     * name (SPEC §3.14, R17: a usage report states the limit actually applied, as a decision does).
     */
    static Plan enforcedPlan(Plan plan, List<PolicyState> states) {
        int n = states.size();
        boolean same = n == plan.size();
        for (int i = 0; i < n && same; i++) {
            Policy p = states.get(i).policy();
            same = p == plan.policy(i) || p.equals(plan.policy(i));
        }
        if (same) {
            return plan;
        }
        List<Policy> enforced = new ArrayList<>(n);
        for (PolicyState s : states) {
            enforced.add(s.policy());
        }
        return Plan.of(plan.name(), enforced);
    }

    /**
     * Gives back what {@code request} was charged (SPEC §3.9: a request dropped before it reached the
     * upstream, e.g. past its deadline, is charged to no policy).
     */
    public void refund(EdgeRequest request, Allowed charge) {
        store.refundAsync(request.caller().limiterKey(), charge);
    }

    /**
     * The rate-limit fields of a 429 that holds {@code key} off for {@code retryAfterSeconds} although its
     * limiter might admit sooner (the escalation stage, SPEC §3.12): the key's standing, uncharged, with
     * policy {@code policy}'s member at {@code r=0} and {@code t} = {@code retryAfterSeconds}, so the field
     * agrees with {@code Retry-After} (SPEC §2.3). When the store cannot be read: the policy line alone. None
     * (and no store read) under {@code rate-limit-fields: false}, as for every other answer.
     *
     * @param policy the name of the policy the hold is reported under (the key's last denying policy)
     * @param retryAfterSeconds the hold's {@code Retry-After}, ≥ 1
     */
    public CompletionStage<List<Header>> heldFields(Caller.ApiKey key, String policy, long retryAfterSeconds) {
        if (!rules.rateLimitFields()) {
            return NO_FIELDS;
        }
        int soft = rules.softLimitPercent();
        return store.usageAsync(key.limiterKey(), key.plan()).thenApply(states -> {
            List<PolicyState> held = new ArrayList<>(states.size());
            for (PolicyState s : states) {
                held.add(s.policy().name().equals(policy)
                        ? new PolicyState(s.policy(), 0, retryAfterSeconds, s.used(), s.resetAtEpochSecond()) : s);
            }
            return LimitFields.headers(key.plan(), held, soft);
        }).exceptionally(error -> LimitFields.headers(key.plan(), List.of(), soft));
    }

    /** SPEC §1 {@code concurrent-requests}: the slots an admission holds come back when the exchange ends. */
    private ExchangeListener releaseOnEnd(Caller caller, Allowed charge) {
        return new ExchangeListener() {
            @Override
            public void onEnd(boolean completed) {
                store.releaseAsync(caller.limiterKey(), charge);
            }
        };
    }

    private List<ExchangeListener> admissionListeners(Caller caller, Allowed allowed) {
        return allowed.plan().hasConcurrencyPolicy()
                ? List.of(refundOn503(caller, allowed), releaseOnEnd(caller, allowed))
                : List.of(refundOn503(caller, allowed));
    }

    /** The chain's end: one limiter decision over every policy of the caller's plan (SPEC §3.3). */
    private CompletionStage<Verdict> limit(EdgeRules r, EdgeRequest request) {
        Caller caller = request.caller();
        Route route = request.route();
        Costs costs = request.costs();
        return storeFor(route).decideAsync(caller.limiterKey(), caller.plan(), costs).thenCompose(decision ->
                switch (caller) {
                    case Caller.ApiKey key -> keyVerdict(r, request, key, decision);
                    case Caller.Anonymous anon -> CompletableFuture.completedFuture(
                            anonymousVerdict(r, request, anon, decision));
                });
    }

    private CompletionStage<Verdict> keyVerdict(EdgeRules r, EdgeRequest request, Caller.ApiKey key,
            Decision decision) {
        Route route = request.route();
        String keyClass = key.plan().name();
        int soft = r.softLimitPercent();
        // the policy line comes from the decision's plan: a shared store failing open reports its degraded plan
        return switch (decision) {
            case Allowed allowed -> CompletableFuture.completedFuture(new Verdict.Forward(request,
                    fields(r, allowed.plan(), allowed.states()), Optional.of(allowed),
                    new DecisionRecord(route.id(), keyClass, DecisionOutcome.ALLOWED, route.dryRun()),
                    warnings(key, request.costs(), allowed.states(), soft), admissionListeners(key, allowed)));
            case Denied denied -> {
                DecisionOutcome outcome = DecisionOutcome.of(Rejection.of(denied));
                DecisionRecord record = route.dryRun() ? new DecisionRecord(route.id(), keyClass, outcome, true)
                        : DecisionRecord.refused(request, outcome);
                List<Header> headers = fields(r, denied.plan(), denied.states());
                yield CompletableFuture.completedFuture(route.dryRun()
                        ? new Verdict.Forward(request, headers, Optional.empty(), record, List.of(), List.of())
                        : new Verdict.Answer(r.problems().denied(denied, request.costs()).withHeaders(headers),
                                record, Optional.of(denied)));
            }
            case CostExceedsBurst tooBig -> usageOrNone(route, key).thenApply(states -> {
                DecisionRecord record = route.dryRun()
                        ? new DecisionRecord(route.id(), keyClass, DecisionOutcome.COST_EXCEEDS_BURST, true)
                        : DecisionRecord.refused(request, DecisionOutcome.COST_EXCEEDS_BURST);
                List<Header> headers = fields(r, tooBig.plan(), states);
                return route.dryRun()
                        ? new Verdict.Forward(request, headers, Optional.empty(), record, List.of(), List.of())
                        : new Verdict.Answer(r.problems().costExceedsBurst(tooBig).withHeaders(headers), record);
            });
            case Unavailable u -> CompletableFuture.completedFuture(new Verdict.Answer(
                    storeUnavailable(r, u).withHeaders(fields(r, u.plan(), List.of())),
                    new DecisionRecord(route.id(), keyClass, DecisionOutcome.UNAVAILABLE, route.dryRun(),
                            key.keyId())));
        };
    }

    private Verdict anonymousVerdict(EdgeRules r, EdgeRequest request, Caller.Anonymous anon, Decision decision) {
        Route route = request.route();
        String keyClass = anon.plan().name();
        return switch (decision) {
            case Allowed allowed -> new Verdict.Forward(request, List.of(), Optional.of(allowed),
                    new DecisionRecord(route.id(), keyClass, DecisionOutcome.ALLOWED, route.dryRun()), List.of(),
                    admissionListeners(anon, allowed));
            case Denied denied -> {
                DecisionRecord record = new DecisionRecord(route.id(), keyClass,
                        DecisionOutcome.of(Rejection.of(denied)), route.dryRun());
                yield route.dryRun()
                        ? new Verdict.Forward(request, List.of(), Optional.empty(), record, List.of(), List.of())
                        : new Verdict.Answer(r.problems().anonymousDenied(anon.plan(), denied), record);
            }
            case CostExceedsBurst tooBig -> {
                DecisionRecord record = new DecisionRecord(route.id(), keyClass, DecisionOutcome.COST_EXCEEDS_BURST,
                        route.dryRun());
                yield route.dryRun()
                        ? new Verdict.Forward(request, List.of(), Optional.empty(), record, List.of(), List.of())
                        : new Verdict.Answer(r.problems().plain(400, "bad_request", "Bad request",
                                "This request is too large to be accepted."), record);
            }
            case Unavailable u -> new Verdict.Answer(storeUnavailable(r, u),
                    new DecisionRecord(route.id(), keyClass, DecisionOutcome.UNAVAILABLE, route.dryRun()));
        };
    }

    /**
     * A shared store that could not decide in its bounded time and fails closed (SPEC §3.14): 503
     * {@code overloaded} with its Retry-After, nothing charged. Not a denial, so even a dry-run route
     * gets it: without a decision there is nothing to report.
     */
    private static EdgeResponse storeUnavailable(EdgeRules r, Unavailable u) {
        return r.problems().overloaded(u.retryAfter(), "The API is briefly unable to check limits; retry shortly.");
    }

    /** SPEC §3.9: an upstream 503 gives back what this request was charged, exactly once. */
    private ExchangeListener refundOn503(Caller caller, Allowed charge) {
        return new RefundOn503(caller, charge);
    }

    /** Refunds the charge on an upstream 503 and keeps the refund's completion for the 503's own fields. */
    private final class RefundOn503 implements ExchangeListener {
        private final Caller caller;
        private final Allowed charge;
        /** set on the exchange's event loop, read there */
        private CompletionStage<Void> refunded;

        RefundOn503(Caller caller, Allowed charge) {
            this.caller = caller;
            this.charge = charge;
        }

        @Override
        public void onUpstreamResponse(int status) {
            if (status == 503 && refunded == null) {
                refunded = store.refundAsync(caller.limiterKey(), charge);
            }
        }
    }

    /**
     * The rate-limit fields of a response to {@code forward} after its charge was refunded (SPEC §2.2 with
     * §3.9: an upstream 503 tells the client what is left, and after the refund that is the whole charge
     * more). Call it after the listeners were told the upstream's status. The key's state is read again
     * once the refund is done, so concurrent requests of the key show too. The in-memory store completes
     * the stage at once; a shared store when its two round trips are done. When the forward was not
     * refunded, or the read fails, it completes with {@code forward.responseHeaders()}.
     */
    public CompletionStage<List<Header>> fieldsAfterRefund(Verdict.Forward forward) {
        List<Header> charged = forward.responseHeaders();
        if (!(forward.request().caller() instanceof Caller.ApiKey key) || charged.isEmpty()) {
            return CompletableFuture.completedFuture(charged);
        }
        RefundOn503 refund = null;
        for (ExchangeListener l : forward.listeners()) {
            if (l instanceof RefundOn503 r && r.refunded != null) {
                refund = r;
            }
        }
        if (refund == null) {
            return CompletableFuture.completedFuture(charged);
        }
        Plan plan = refund.charge.plan();
        EdgeRules r = rules;
        LimiterStore s = storeFor(forward.request().route());
        return refund.refunded.thenCompose(done -> s.usageAsync(key.limiterKey(), key.plan()))
                .thenApply(states -> fields(r, plan, states))
                .exceptionally(error -> charged);
    }

    /**
     * The key's RateLimit fields (SPEC §2.2), or none where the configuration turned them off
     * ({@code rate-limit-fields: false}).
     */
    private static List<Header> fields(EdgeRules r, Plan plan, List<PolicyState> states) {
        return r.rateLimitFields() ? LimitFields.headers(plan, states, r.softLimitPercent()) : List.of();
    }

    /** The quota policies this charge pushed over the soft limit (SPEC §3.8). */
    private List<QuotaWarning> warnings(Caller.ApiKey key, Costs costs, List<PolicyState> states, int soft) {
        List<QuotaWarning> out = null;
        for (PolicyState s : states) {
            if (LimitFields.crossedSoftLimit(s, costs.costFor(s.policy()), soft) && s.resetAt().isPresent()) {
                if (out == null) {
                    out = new ArrayList<>(1);
                }
                Instant now = time.now();
                out.add(new QuotaWarning(key.keyId(), key.plan().name(), s.policy().name(), s.used(),
                        s.policy().quota(), s.resetAt().get(), now));
            }
        }
        return out == null ? List.of() : out;
    }

    private CompletionStage<Verdict> unauthenticated(Problems problems, Route route, Problems.BearerError error,
            String detail) {
        // no limiter call: an unknown key must not create state (bounded memory under a key flood)
        return answer(problems.unauthenticated(error, detail),
                new DecisionRecord(route.id(), DecisionRecord.NO_KEY, DecisionOutcome.UNAUTHENTICATED, false));
    }

    private CompletionStage<Verdict> answerWithFields(EdgeRules r, Route route, Caller.ApiKey key,
            EdgeResponse response, DecisionRecord record) {
        return usageOrNone(route, key).thenApply(states -> new Verdict.Answer(
                response.withHeaders(fields(r, key.plan(), states)), record));
    }

    /** The store, or its view answering by the route's own failure mode (SPEC §3.14). */
    private LimiterStore storeFor(Route route) {
        return route.failureMode().isEmpty() ? store : store.withFailureMode(route.failureMode().get());
    }

    /**
     * The key's standing for the fields of a response that is not a decision (400, 411); empty when a
     * store failing closed cannot read it: the answer then goes without the fields rather than failing.
     */
    private CompletionStage<List<PolicyState>> usageOrNone(Route route, Caller.ApiKey key) {
        return storeFor(route).usageAsync(key.limiterKey(), key.plan()).exceptionally(error -> {
            if (unwrap(error) instanceof StoreUnavailableException) {
                return List.of();
            }
            throw error instanceof CompletionException ce ? ce : new CompletionException(error);
        });
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static CompletionStage<Verdict> answer(EdgeResponse response, DecisionRecord record) {
        return CompletableFuture.completedFuture(new Verdict.Answer(response, record));
    }

    private static Costs costs(Route route, ContentLength.Result length) {
        long bytes = length instanceof ContentLength.Length l ? l.bytes() : 0;
        return bytes == 0 ? Costs.requests(route.cost()) : new Costs(route.cost(), bytes);
    }

    private static boolean countsBytes(Plan plan) {
        for (Policy p : plan.policies()) {
            if (p.unit() == QuotaUnit.CONTENT_BYTES) {
                return true;
            }
        }
        return false;
    }
}
