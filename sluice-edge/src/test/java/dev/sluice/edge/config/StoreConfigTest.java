package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code store} section and the routes' {@code failure-mode} (SPEC §3.14), and plan checks at load. */
class StoreConfigTest {

    private static final String PLANS = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
            keys:
              sk_free: free
            """;

    @Test
    void withoutAStoreSectionStateIsInMemory() {
        assertThat(EdgeConfig.parse("m.yaml", PLANS).store()).isEqualTo(StoreConfig.MEMORY);
        assertThat(EdgeConfig.parse("m.yaml", "store: memory\n" + PLANS).store()).isEqualTo(StoreConfig.MEMORY);
    }

    @Test
    void aRedisUrlAloneSelectsRedisWithEveryDefault() {
        StoreConfig store = EdgeConfig.parse("r.yaml", "store: redis://10.0.0.5:6379\n" + PLANS).store();

        StoreConfig.Redis redis = (StoreConfig.Redis) store;
        assertThat(redis.url()).isEqualTo("redis://10.0.0.5:6379");
        assertThat(redis.replicas()).isEqualTo(1);
        assertThat(redis.decisionTimeout()).isEqualTo(Duration.ofMillis(50)); // the issue's default bound
        assertThat(redis.failureMode()).isEqualTo(FailureMode.FAIL_OPEN_DEGRADED); // SPEC §3.14 default
        assertThat(redis.denyCacheMaxAge()).isEqualTo(Duration.ofSeconds(1));
        assertThat(redis.lease()).isEmpty();
        assertThat(redis.keyPrefix()).isEqualTo("sluice:lim:");
    }

    @Test
    void everyRedisSettingIsRead() {
        String yaml = """
                store:
                  url: rediss://:s3cret@redis.internal:6380/2
                  replicas: 3
                  decision-timeout: 20ms
                  failure-mode: fail-closed
                  deny-cache: off
                  lease: { units: 10, ttl: 500ms }
                  key-prefix: "shiplane:lim:"
                  unavailable-retry-after: 2s
                """ + PLANS;

        StoreConfig.Redis redis = (StoreConfig.Redis) EdgeConfig.parse("r.yaml", yaml).store();

        assertThat(redis).isEqualTo(new StoreConfig.Redis("rediss://:s3cret@redis.internal:6380/2", 3,
                Duration.ofMillis(20), FailureMode.FAIL_CLOSED, Duration.ZERO,
                Optional.of(new StoreConfig.Lease(10, Duration.ofMillis(500))), "shiplane:lim:", Duration.ofSeconds(2)));
        assertThat(redis.toString()).doesNotContain("s3cret").contains("rediss://***@redis.internal:6380/2");
    }

    @Test
    void aRouteMayFailClosedWhileTheStoreFailsOpen() {
        String yaml = "store: { url: redis://127.0.0.1:6379, replicas: 3 }\n" + PLANS + """
                routes:
                  - { method: POST, path: /v1/payments, failure-mode: fail-closed }
                  - { method: GET, path: /v1/quotes, failure-mode: fail-open-degraded }
                  - { method: GET, path: /v1/labels }
                """;

        EdgeConfig c = EdgeConfig.parse("r.yaml", yaml);

        assertThat(c.routes().match("POST", "/v1/payments").failureMode()).contains(FailureMode.FAIL_CLOSED);
        assertThat(c.routes().match("GET", "/v1/quotes").failureMode()).contains(FailureMode.FAIL_OPEN_DEGRADED);
        assertThat(c.routes().match("GET", "/v1/labels").failureMode()).isEmpty(); // the store's own mode
    }

    @Test
    void badStoreSettingsAreReportedWithFileLineAndFieldAndNoPassword() {
        String yaml = """
                store:
                  url: http://:pw@redis.internal:6379
                  replicas: 0
                  decision-timeout: 50
                  failure-mode: open
                  deny-cache: 1 day
                  lease: { units: 1 }
                  cluster: yes
                """ + PLANS + """
                routes:
                  - { method: GET, path: /v1/a, failure-mode: sometimes }
                """;

        assertThatThrownBy(() -> EdgeConfig.parse("bad.yaml", yaml)).isInstanceOfSatisfying(ConfigException.class,
                e -> {
                    assertThat(e.problems()).extracting(ConfigProblem::toString).contains(
                            "bad.yaml:2: store.url: must be a redis://, rediss://, redis-cluster:// or redis-sentinel:// URL, was \"http://***@redis.internal:6379\"",
                            "bad.yaml:3: store.replicas: must be in 1..10000, was 0",
                            "bad.yaml:4: store.decision-timeout: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was 50 (add a unit: 50s or 50ms)",
                            "bad.yaml:5: store.failure-mode: must be fail-open-degraded or fail-closed, was \"open\"",
                            "bad.yaml:6: store.deny-cache: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"1 day\" (units are ms, s, m, h, d: write 1d)",
                            "bad.yaml:7: store.lease: ttl: required (how long a lease may be spent, e.g. 1s)",
                            "bad.yaml:7: store.lease.units: must be in 2..1000000, was 1",
                            "bad.yaml:17: routes[0].failure-mode: must be fail-open-degraded or fail-closed, was \"sometimes\"")
                            .anyMatch(p -> p.startsWith("bad.yaml:8: store.cluster: unknown field"));
                    assertThat(e.getMessage()).doesNotContain(":pw@");
                });
    }

    @Test
    void aRedisUrlTheRedisClientWouldRefuseIsReportedAtItsLine() {
        // each of these passed the check before and then failed in Lettuce when the store opened
        String yaml = "store:\n  url: %s\n" + PLANS;
        assertThatThrownBy(() -> EdgeConfig.parse("p.yaml", yaml.formatted("redis://10.0.0.5:99999")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("p.yaml:2: store.url: port: must be in 1..65535, was 99999");
        assertThatThrownBy(() -> EdgeConfig.parse("d.yaml", yaml.formatted("redis://10.0.0.5:6379/abc")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("d.yaml:2: store.url: the path is the database number (redis://host:6379/0), was \"/abc\"");
        assertThatThrownBy(() -> EdgeConfig.parse("n.yaml", yaml.formatted("redis://10.0.0.5:6379/-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("n.yaml:2: store.url: the path is the database number");
        assertThatThrownBy(() -> EdgeConfig.parse("v.yaml", yaml.formatted("rediss://10.0.0.5/2?verifyPeer=true")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("v.yaml:2: store.url: verifyPeer: must be full, ca or none, was \"true\"");
        // the one-line form says why too
        assertThatThrownBy(() -> EdgeConfig.parse("s.yaml", "store: redis://10.0.0.5:0\n" + PLANS))
                .isInstanceOf(ConfigException.class)
                .hasMessage("s.yaml:1: store: port: must be in 1..65535, was 0");
        // what Lettuce reads is still accepted
        assertThat(EdgeConfig.parse("ok.yaml", yaml.formatted("rediss://:pw@10.0.0.5:6380/15?verifyPeer=CA")).store())
                .isInstanceOf(StoreConfig.Redis.class);
    }

    @Test
    void clusterAndSentinelUrlsAreReadAndTheirMistakesReportedAtTheirLine() {
        String yaml = "store:\n  url: %s\n" + PLANS;
        for (String ok : new String[] {"redis-cluster://10.0.0.5:7000,10.0.0.6:7001", "rediss-cluster://:pw@h1:7000/0",
                "redis-sentinel://10.0.0.5:26379,10.0.0.6:26379#mymaster", "rediss-sentinel://:pw@h1/2#orders"}) {
            assertThat(EdgeConfig.parse("ok.yaml", yaml.formatted(ok)).store()).as(ok)
                    .isEqualTo(StoreConfig.Redis.of(ok));
        }
        assertThat(EdgeConfig.parse("one.yaml", "store: redis-cluster://10.0.0.5:7000\n" + PLANS).store())
                .isEqualTo(StoreConfig.Redis.of("redis-cluster://10.0.0.5:7000"));
        assertThat(StoreConfig.Redis.of("redis-cluster://:s3cret@h1:7000").toString())
                .doesNotContain("s3cret").contains("redis-cluster://***@h1:7000");

        assertThatThrownBy(() -> EdgeConfig.parse("m.yaml", yaml.formatted("redis-sentinel://10.0.0.5:26379")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("m.yaml:2: store.url: a sentinel URL names its master after '#' "
                        + "(redis-sentinel://host:26379#mymaster), was \"redis-sentinel://10.0.0.5:26379\"");
        assertThatThrownBy(() -> EdgeConfig.parse("d.yaml", yaml.formatted("redis-cluster://10.0.0.5:7000/3")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("d.yaml:2: store.url: a Redis Cluster has database 0 only, was \"/3\"");
        assertThatThrownBy(() -> EdgeConfig.parse("p.yaml", yaml.formatted("redis-cluster://10.0.0.5:7000,:7001")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("p.yaml:2: store.url: must name a host for each node (redis-cluster://host:7000,host:7001), "
                        + "was \"redis-cluster://10.0.0.5:7000,:7001\"");
        assertThatThrownBy(() -> EdgeConfig.parse("q.yaml", yaml.formatted("redis-cluster://h1:70000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("q.yaml:2: store.url: port: must be in 1..65535, was \"70000\"");
    }

    @Test
    void aStoreMappingNeedsAUrlAndAScalarMustBeMemoryOrRedis() {
        assertThatThrownBy(() -> EdgeConfig.parse("u.yaml", "store: { replicas: 3 }\n" + PLANS))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("u.yaml:1: store: url: required");
        assertThatThrownBy(() -> EdgeConfig.parse("u.yaml", "store: redis://user:pw@\n" + PLANS))
                .isInstanceOf(ConfigException.class)
                .hasMessage("u.yaml:1: store: must be memory or a redis://, redis-cluster:// or redis-sentinel:// URL, was a URL with credentials");
    }

    @Test
    void aPlanTheStoreRefusesIsNamedByFileLineAndFieldAtLoad() {
        String yaml = """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2 }
                  slow:
                    policies:
                      - { name: burst, kind: burst, q: 3, w: 2000000 }
                      - { name: monthly, kind: quota, q: 100, window: monthly }
                keys:
                  sk_free: free
                  sk_slow: { plan: slow, renewal-day: 15 }
                  sk_big: free
                key-overrides:
                  sk_big: { burst: { q: 7, w: 3000000 } }
                """;
        EdgeConfig c = EdgeConfig.parse("v.yaml", yaml);
        List<Plan> asked = new ArrayList<>();

        assertThatThrownBy(() -> c.validatePlans(plan -> {
            asked.add(plan);
            if (plan.policy(0).windowSeconds() > 1_000_000) {
                throw new IllegalArgumentException("policy burst: beyond this store's exact range");
            }
        })).isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems())
                .extracting(ConfigProblem::toString)
                .containsExactly("v.yaml:5: plans.slow: policy burst: beyond this store's exact range",
                        "v.yaml:14: key-overrides.sk_big: policy burst: beyond this store's exact range"));
        // each distinct plan once: free, slow, slow renewing on the 15th (reported where slow is written),
        // free with the override, and the built-in anonymous plan
        assertThat(asked).extracting(Plan::name).containsExactly("free", "slow", "slow", "free", "anonymous");
    }

    @Test
    void theEdgeRefusesToStartOnARedisStoreItWasNotGiven() {
        EdgeConfig c = EdgeConfig.parse("r.yaml", "store: redis://:pw@10.0.0.5:6379\n" + PLANS);

        assertThatThrownBy(() -> EdgeServer.start(c, EdgeOptions.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("store: redis://***@10.0.0.5:6379 is a shared Redis store")
                .hasMessageContaining("EdgeOptions.withStore");
    }

    @Test
    void startAndReloadAskTheStoreAboutEveryPlan() {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        InMemoryLimiterStore memory = new InMemoryLimiterStore(time);
        LimiterStore refusesHuge = new LimiterStore() {
            @Override
            public Decision decide(String key, Plan plan, Costs costs) {
                return memory.decide(key, plan, costs);
            }

            @Override
            public List<PolicyState> usage(String key, Plan plan) {
                return memory.usage(key, plan);
            }

            @Override
            public void refund(String key, Allowed charge) {
                memory.refund(key, charge);
            }

            @Override
            public void validate(Plan plan) {
                if (plan.name().equals("huge")) {
                    throw new IllegalArgumentException("plan huge: not in this store");
                }
            }
        };
        String huge = """
                  huge:
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 5 }
                """;
        EdgeConfig bad = EdgeConfig.parse("h.yaml", PLANS.replace("keys:", huge + "keys:"))
                .withListenPort(0).withAdmin(Optional.empty());
        EdgeOptions options = EdgeOptions.defaults().withTime(time).withStore(refusesHuge);

        assertThatThrownBy(() -> EdgeServer.start(bad, options)).isInstanceOf(ConfigException.class)
                .hasMessage("h.yaml:6: plans.huge: plan huge: not in this store");

        EdgeConfig good = EdgeConfig.parse("g.yaml", PLANS).withListenPort(0).withAdmin(Optional.empty());
        try (EdgeServer edge = EdgeServer.start(good, options)) {
            assertThatThrownBy(() -> edge.reload(bad)).isInstanceOf(ConfigException.class);
            assertThat(edge.config().plans()).containsOnlyKeys("free"); // the running configuration stays
        }
    }
}
