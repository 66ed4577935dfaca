package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.route.Criticality;
import dev.sluice.edge.route.Route;
import dev.sluice.edge.testing.Captures;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EdgeConfigTest {

    private static final String MINIMAL = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys:
              sk_test_free_1: free
            """;

    @Test
    void theShippedShiplaneExampleLoads() {
        EdgeConfig c = EdgeConfig.load(Captures.repoRoot().resolve("examples/shiplane.yaml"));
        assertThat(c.upstream().url()).isEqualTo(URI.create("http://127.0.0.1:8081"));
        assertThat(c.plans()).containsOnlyKeys("free", "pro", "per-ip");
        assertThat(c.anonymousPlan().name()).isEqualTo("per-ip");
        assertThat(c.problem().baseUri()).isEqualTo("https://docs.shiplane.example");
        assertThat(c.routes().routes()).extracting(Route::id).containsExactly("POST /v1/labels",
                "POST /v1/labels:batch", "GET /v1/quotes", "POST /v1/login", "GET /v1/usage");
        Route labels = c.routes().match("POST", "/v1/labels");
        assertThat(labels.criticality()).isEqualTo(Criticality.CRITICAL);
        assertThat(labels.idempotencyRequired()).isTrue();
        assertThat(c.routes().match("POST", "/v1/labels:batch").cost()).isEqualTo(10);
        assertThat(c.routes().match("POST", "/v1/labels:batch").idempotencyRequired()).isTrue();
        assertThat(c.routes().match("GET", "/v1/quotes").criticality()).isEqualTo(Criticality.SHEDDABLE);
        assertThat(c.routes().match("POST", "/v1/login").anonymous()).isTrue();
        assertThat(c.routes().match("GET", "/v1/usage").handler()).isEqualTo(Route.Handler.USAGE);
        // SPEC §2.1's Free plan
        assertThat(c.binding("sk_test_free_1").orElseThrow().plan().policies()).extracting(p -> p.name() + "/"
                + p.quota() + "/" + p.windowSeconds()).containsExactly("burst/20/2", "daily/10000/86400");
    }

    @Test
    void plansAndKeysAloneGiveAWorkingEdgeConfiguration() {
        EdgeConfig c = EdgeConfig.parse("min.yaml", MINIMAL);
        assertThat(c.listen().host()).isEqualTo("0.0.0.0");
        assertThat(c.listen().port()).isEqualTo(8080);
        assertThat(c.admin()).contains(new AdminConfig("127.0.0.1", 9090));
        assertThat(c.upstream()).isEqualTo(UpstreamConfig.DEFAULT);
        assertThat(c.softLimitPercent()).isEqualTo(80);
        assertThat(c.anonymousPlan()).isEqualTo(EdgeConfig.DEFAULT_ANONYMOUS_PLAN);
        assertThat(c.routes().match("GET", "/v1/usage").handler()).isEqualTo(Route.Handler.USAGE);
        assertThat(c.routes().match("DELETE", "/anything/at/all")).isEqualTo(c.routes().fallback());
        assertThat(c.routes().fallback().cost()).isEqualTo(1);
    }

    @Test
    void sectionsReadTheirShortAndLongForms() {
        EdgeConfig c = EdgeConfig.parse("c.yaml", MINIMAL + """
                listen: { host: 127.0.0.1, port: 9000, idle-timeout: 30s, max-header-count: 50, transport: nio }
                admin: off
                upstream: { url: "http://10.0.0.7:9999", connect-timeout: 500ms, response-timeout: 1m, pool-size: 8 }
                problem: { base-uri: "https://api.example.com/", types: iana }
                soft-limit: { threshold-percent: 90 }
                """);
        assertThat(c.listen()).isEqualTo(new ListenConfig("127.0.0.1", 9000, Duration.ofSeconds(30), 50, 16 * 1024,
                8 * 1024, 64 * 1024, ListenConfig.Transport.NIO, 0));
        assertThat(c.admin()).isEmpty();
        assertThat(c.upstream()).isEqualTo(new UpstreamConfig(URI.create("http://10.0.0.7:9999"),
                Duration.ofMillis(500), Duration.ofMinutes(1), 8));
        assertThat(c.problem()).isEqualTo(new ProblemConfig("https://api.example.com", ProblemConfig.TypeUris.IANA));
        assertThat(c.softLimitPercent()).isEqualTo(90);
        assertThat(EdgeConfig.parse("c.yaml", MINIMAL + "listen: \"[::1]:7000\"\n").listen().host()).isEqualTo("::1");
        assertThat(EdgeConfig.parse("c.yaml", MINIMAL + "listen: 7000\n").listen().port()).isEqualTo(7000);
    }

    @Test
    void everyErrorIsReportedAtOnceWithFileLineAndField() {
        String yaml = """
                listen: "nowhere"
                admin: { port: 70000 }
                upstream: { url: "ftp://example.com", connect-timeout: 2 }
                store: mongodb://localhost
                shedding: { reserve: 20 }
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 0, w: 2 }
                keys:
                  sk_a: free
                key-overrides:
                  sk_b: { burst: { q: 5 } }
                anonymous: { plan: nope }
                routes:
                  - { method: GET, path: /v1/a }
                  - { method: GET, path: /v1/b, criticality: IMPORTANT }
                  - { method: "G T", path: v1/c, cost: -1, dry-run: maybe }
                  - { method: GET, path: /v1/a }
                """;
        assertThatThrownBy(() -> EdgeConfig.parse("bad.yaml", yaml)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.problems()).extracting(ConfigProblem::toString).contains(
                        "bad.yaml:1: listen: must be a port or host:port (port 0..65535), was \"nowhere\"",
                        "bad.yaml:2: admin.port: must be in 0..65535, was 70000",
                        "bad.yaml:3: upstream.url: must be an http:// or https:// URL, was \"ftp://example.com\"",
                        "bad.yaml:3: upstream.connect-timeout: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was 2 (add a unit: 2s or 2ms)",
                        "bad.yaml:4: store: must be memory or a redis://, redis-cluster:// or redis-sentinel:// URL, was \"mongodb://localhost\"",
                        "bad.yaml:9: plans.free.policies[0].q: must be > 0, was 0",
                        "bad.yaml:13: key-overrides.sk_b: unknown key (declare it under keys first)",
                        "bad.yaml:17: routes[1].criticality: must be CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or "
                                + "SHEDDABLE, was \"IMPORTANT\"",
                        "bad.yaml:18: routes[2].path: must start with /, was \"v1/c\"",
                        "bad.yaml:18: routes[2].cost: must be >= 0, was -1",
                        "bad.yaml:18: routes[2].dry-run: must be true or false, was \"maybe\"",
                        "bad.yaml:19: routes[3]: duplicate route GET /v1/a (first at line 16)")
                        .anyMatch(p -> p.startsWith("bad.yaml:5: shedding.reserve: unknown field"))
                        .anyMatch(p -> p.startsWith("bad.yaml:14: anonymous.plan: unknown plan \"nope\""))
                        .anyMatch(p -> p.startsWith("bad.yaml:18: routes[2].method: must be a token")));
    }

    @Test
    void aKeyOverrideDerivesThePlanWithTheSameName() {
        EdgeConfig c = EdgeConfig.parse("o.yaml", MINIMAL + """
                key-overrides:
                  sk_test_free_1: { burst: { q: 40, w: 4 } }
                """);
        var plan = c.binding("sk_test_free_1").orElseThrow().plan();
        assertThat(plan.name()).isEqualTo("free");
        assertThat(plan.policy(0).quota()).isEqualTo(40);
        assertThat(plan.policy(0).windowSeconds()).isEqualTo(4);
        assertThat(c.plans().get("free").policy(0).quota()).isEqualTo(20);
    }

    @Test
    void withKeyBindsAGeneratedKeyAndRefusesUnknownPlansAndBadTokens() {
        EdgeConfig c = EdgeConfig.parse("min.yaml", MINIMAL).withKey("sk_demo_0042", "free");
        assertThat(c.binding("sk_demo_0042").orElseThrow().plan().name()).isEqualTo("free");
        assertThatThrownBy(() -> c.withKey("sk_x", "gold")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown plan");
        assertThatThrownBy(() -> c.withKey("has space", "free")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withUpstreamUrlRefusesAPath() {
        EdgeConfig c = EdgeConfig.parse("min.yaml", MINIMAL);
        assertThatThrownBy(() -> c.withUpstreamUrl(URI.create("http://127.0.0.1:8081/api")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without path");
        assertThat(c.withUpstreamUrl(URI.create("http://127.0.0.1:9")).upstream().authority()).isEqualTo("127.0.0.1:9");
    }

    @Test
    void notYamlIsAConfigExceptionWithTheLine() {
        assertThatThrownBy(() -> EdgeConfig.parse("x.yaml", "plans: [\n  - : :\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("x.yaml:");
        assertThat(List.of()).isEmpty();
    }

    @Test
    void rateLimitFieldsReadsOnOffTrueFalseAndNamesTheLineOfAnythingElse() {
        String plans = "plans:\n  free:\n    policies:\n      - { name: burst, kind: burst, q: 20, w: 2 }\n";
        assertThat(EdgeConfig.parse("a.yaml", plans).rateLimitFields()).isTrue();
        assertThat(EdgeConfig.parse("b.yaml", "rate-limit-fields: off\n" + plans).rateLimitFields()).isFalse();
        assertThat(EdgeConfig.parse("c.yaml", "rate-limit-fields: false\n" + plans).rateLimitFields()).isFalse();
        assertThat(EdgeConfig.parse("d.yaml", "rate-limit-fields: on\n" + plans).rateLimitFields()).isTrue();
        // carried through the with… copies
        assertThat(EdgeConfig.parse("e.yaml", "rate-limit-fields: off\n" + plans).withListenPort(0).rateLimitFields())
                .isFalse();
        assertThatThrownBy(() -> EdgeConfig.parse("f.yaml", "rate-limit-fields: sometimes\n" + plans))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems())
                        .extracting(ConfigProblem::toString)
                        .contains("f.yaml:1: rate-limit-fields: must be true, false, on or off, was \"sometimes\""));
    }
}
