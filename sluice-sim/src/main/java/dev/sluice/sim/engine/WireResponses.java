package dev.sluice.sim.engine;

import dev.sluice.client.core.Answer;
import dev.sluice.wire.dialect.DialectRegistry;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.headers.Rejection;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.headers.RateLimitFields;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The wire between the simulated edge and the simulated SDKs: the server writes the header fields
 * and problem body the edge writes (SPEC §2, §3.4), and every client reads them through
 * {@code sluice-wire}'s standard dialect registry, exactly as {@code SluiceHttpClient} does. Reading
 * is memoised on the exact bytes of the response (and the wall-clock second when a quota's reset
 * instant depends on it), because a fleet of 10,000 clients sees the same few thousand distinct
 * responses millions of times. Not thread-safe.
 */
final class WireResponses {

    /** The problem-type base URI (configuration at the edge, SPEC §3.4). */
    static final String PROBLEM_BASE = "https://sluice.example/errors/";

    private static final int MAX_CACHED = 100_000;

    private final DialectRegistry registry = DialectRegistry.standard();
    private final Map<Key, Answer.Response> cache = new HashMap<>();

    /**
     * The answer a client receives: 200, or the status and problem of {@code rejection}, as the edge writes them
     * ({@link Rejection} owns that mapping for both).
     *
     * @param rejection why the request was refused, or {@code null} for a 200 without body
     * @param retryAfterSeconds the Retry-After delay-seconds, or -1 for none
     * @param plan the limiter plan whose fields the edge writes, or {@code null} for none
     * @param states the {@code RateLimit} members (plan order), or {@code null}
     * @param limit the policy that denied (problem {@code limit}), or {@code null}
     * @param wallNow the client's wall clock; part of the key only when the plan has a quota policy
     *     (a quota's reset instant depends on it)
     */
    Answer.Response answer(Rejection rejection, long retryAfterSeconds, Plan plan, List<PolicyState> states,
            String limit, Instant wallNow) {
        int status = rejection == null ? 200 : rejection.status();
        boolean wallClockMatters = plan != null && plan.hasQuotaPolicy();
        int n = states == null ? 0 : states.size();
        long[] numbers = new long[3 + 2 * n];
        numbers[0] = status;
        numbers[1] = retryAfterSeconds;
        numbers[2] = wallClockMatters ? wallNow.getEpochSecond() : 0;
        for (int i = 0; i < n; i++) {
            numbers[3 + 2 * i] = states.get(i).remaining();
            numbers[4 + 2 * i] = states.get(i).resetSeconds();
        }
        Key key = new Key(numbers, plan, rejection, limit);
        Answer.Response cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        HttpFields.Builder h = HttpFields.builder();
        if (plan != null) {
            h.add("RateLimit-Policy", plan.rateLimitPolicyField());
        }
        if (states != null) {
            h.add("RateLimit", RateLimitFields.rateLimitField(states));
        }
        if (retryAfterSeconds >= 0) {
            h.add("Retry-After", Long.toString(retryAfterSeconds));
        }
        String body = null;
        String type = null;
        if (rejection != null) {
            type = PROBLEM_BASE + rejection.code();
            h.add("Content-Type", ProblemDetails.MEDIA_TYPE);
            h.add("Cache-Control", "no-store");
            ProblemDetails.Builder problem = rejection.problem(type).detail("simulated");
            if (limit != null) {
                problem.limit(limit).violatedPolicies(List.of(limit));
            }
            if (retryAfterSeconds >= 0) {
                problem.retryAfterSeconds(retryAfterSeconds);
            }
            body = problem.build().toJson();
        }
        RateLimitSnapshot snapshot = registry.read(new ResponseView(status, h.build(), body), wallNow);
        Answer.Response answer = new Answer.Response(snapshot, type);
        if (cache.size() >= MAX_CACHED) {
            cache.clear();
        }
        cache.put(key, answer);
        return answer;
    }

    /** What makes two responses byte-identical: the numbers on the wire, the plan, the problem. */
    private record Key(long[] numbers, Plan plan, Rejection code, String limit) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(numbers, k.numbers) && Objects.equals(plan, k.plan)
                    && Objects.equals(code, k.code) && Objects.equals(limit, k.limit);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(numbers) * 31 + Objects.hash(plan, code, limit);
        }
    }

    int cachedResponses() {
        return cache.size();
    }
}
