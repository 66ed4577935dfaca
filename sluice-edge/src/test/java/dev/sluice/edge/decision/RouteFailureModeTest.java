package dev.sluice.edge.decision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.response.Header;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.StoreUnavailableException;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3.14 "denies (fail-closed, configurable)" per route: the decider asks the store's
 * {@link LimiterStore#withFailureMode} view for a route with a {@code failure-mode} of its own. The
 * store here is a stand-in for Redis while Redis does not answer: its default (fail-open-degraded)
 * decides locally at {@code ceil(q/3)}, its fail-closed view answers {@link Unavailable}. The real
 * store is exercised over HTTP in sluice-cli's edge-on-Redis tests.
 */
class RouteFailureModeTest {

    private static final String YAML = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys:
              sk_free: free
            routes:
              - { method: POST, path: /v1/payments, failure-mode: fail-closed }
              - { method: GET, path: /v1/usage, handler: usage, failure-mode: fail-closed }
              - { method: GET, path: /v1/usage-open, handler: usage }
              - { method: "*", path: "/**" }
            """;

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final InMemoryLimiterStore local = new InMemoryLimiterStore(time);
    private final EdgeConfig config = EdgeConfig.parse("modes.yaml", YAML);

    /** Redis is away: fail-open decides at q/3 locally; the fail-closed view cannot decide at all. */
    private final class RedisAway implements LimiterStore {
        private final FailureMode mode;

        RedisAway(FailureMode mode) {
            this.mode = mode;
        }

        @Override
        public Decision decide(String key, Plan plan, Costs costs) {
            if (mode == FailureMode.FAIL_CLOSED) {
                return new Unavailable(plan, Duration.ofSeconds(1), "redis: no reply in 50 ms");
            }
            return local.decide(key, Plan.of(plan.name(), BurstPolicy.of("burst", 7, 2)), costs); // ceil(20/3)
        }

        @Override
        public List<PolicyState> usage(String key, Plan plan) {
            return local.usage(key, plan);
        }

        @Override
        public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
            if (mode == FailureMode.FAIL_CLOSED) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("redis: down", null));
            }
            return LimiterStore.super.usageAsync(key, plan);
        }

        @Override
        public void refund(String key, Allowed charge) {
            local.refund(key, charge);
        }

        @Override
        public LimiterStore withFailureMode(FailureMode other) {
            return other == mode ? this : new RedisAway(other);
        }
    }

    private Verdict decide(String method, String path) {
        EdgeDecider decider = new EdgeDecider(new EdgeRules(config), new RedisAway(FailureMode.FAIL_OPEN_DEGRADED),
                time, List.of());
        return decider.decide(RequestHead.of(method, path, "Bearer sk_free", "192.0.2.7")).toCompletableFuture()
                .join();
    }

    private static String header(List<Header> headers, String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).map(Header::value).findFirst()
                .orElse(null);
    }

    @Test
    void aFailClosedRouteIs503OverloadedWhileOtherRoutesAreDecidedByTheLocalShare() {
        Verdict payment = decide("POST", "/v1/payments");
        Verdict labels = decide("POST", "/v1/labels");

        Verdict.Answer closed = (Verdict.Answer) payment;
        assertThat(closed.response().status()).isEqualTo(503);
        assertThat(closed.response().header("Retry-After")).contains("1");
        assertThat(closed.response().header("Content-Type")).contains("application/problem+json");
        assertThat(closed.record().outcome()).isEqualTo(DecisionOutcome.UNAVAILABLE);

        Verdict.Forward open = (Verdict.Forward) labels;
        // R17: the degraded answer states the share it enforced, never silently the full q
        assertThat(header(open.responseHeaders(), "RateLimit-Policy")).isEqualTo("\"burst\";q=7;w=2");
        assertThat(header(open.responseHeaders(), "RateLimit")).isEqualTo("\"burst\";r=6;t=1");
        assertThat(local.keyCount()).isEqualTo(1); // the fail-closed route charged nothing anywhere
    }

    @Test
    void aUsageReadAFailClosedStoreCannotMakeIs503NotAnInternalError() {
        Verdict.Answer closed = (Verdict.Answer) decide("GET", "/v1/usage");
        Verdict.Answer open = (Verdict.Answer) decide("GET", "/v1/usage-open");

        assertThat(closed.response().status()).isEqualTo(503);
        assertThat(closed.response().header("Retry-After")).contains("1");
        assertThat(closed.record().outcome()).isEqualTo(DecisionOutcome.UNAVAILABLE);
        assertThat(open.response().status()).isEqualTo(200);
        assertThat(open.record().outcome()).isEqualTo(DecisionOutcome.USAGE);
    }
}
