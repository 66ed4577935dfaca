package dev.sluice.sim.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.ClientConfig;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioReaderTest {

    @TempDir
    Path dir;

    private static Scenario read(String yaml) {
        return ScenarioReader.read("s.yaml", new StringReader(yaml));
    }

    private static List<String> problems(String yaml) {
        try {
            read(yaml);
        } catch (ConfigException e) {
            return e.problems().stream().map(ConfigProblem::toString).toList();
        }
        throw new AssertionError("expected a ConfigException");
    }

    @Test
    void everyBuiltInScenarioReads() {
        for (String name : BuiltInScenarios.NAMES) {
            Scenario s = BuiltInScenarios.load(name);
            assertThat(s.name()).isEqualTo(name);
            assertThat(s.source()).isEqualTo("built-in:" + name);
        }
        assertThat(BuiltInScenarios.load("adaptive-throttle").variants()).hasSize(22);
    }

    @Test
    void anUnknownHttpMethodIsOneProblemNamingTheKnownOnes() {
        assertThat(problems("name: t\nduration: 5s\nfleet:\n  call: { method: FETCH }\n"))
                .containsExactly("s.yaml:4: fleet.call.method: must be one of GET, HEAD, POST, PUT, DELETE, OPTIONS,"
                        + " PATCH (RFC 9110 §9.3, RFC 5789), was \"FETCH\"");
        assertThat(read("name: t\nduration: 5s\nfleet:\n  call: { method: patch }\n").variants().get(0).fleet()
                .call().method()).isEqualTo("PATCH");
    }

    @Test
    void variantsOverrideOnlyWhatTheyName() {
        Scenario s = read("""
                name: t
                duration: 10s
                fleet:
                  clients: 7
                  sdk: { throttle: { k: 1.5 }, retry: { max_attempts: 2 } }
                variants:
                  - { name: a }
                  - { name: b, fleet: { sdk: { retry: { jitter: false } } } }
                """);
        FleetSettings.SdkSettings a = s.variants().get(0).fleet().sdk();
        FleetSettings.SdkSettings b = s.variants().get(1).fleet().sdk();
        assertThat(b.jitter()).isFalse();
        assertThat(a.jitter()).isTrue();
        assertThat(b.throttleK()).isEqualTo(1.5);
        assertThat(b.maxAttempts()).isEqualTo(2);
        assertThat(s.variants().get(1).fleet().clients()).isEqualTo(7);
        assertThat(s.measureTo()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theSdkDefaultsAreTheSdksOwn() {
        Scenario s = ScenarioReader.read("s.yaml", new StringReader("name: t\nduration: 10s\n"));

        assertThat(s.variants().get(0).fleet().sdk().client()).isEqualTo(ClientConfig.defaults());
        assertThat(s.variants().get(0).fleet().sdk().effective()).isEqualTo(ClientConfig.defaults());
    }

    @Test
    void kebabCaseKeysAreTheFormatAndSnakeCaseReadsTheSameWithAWarning() {
        String kebab = """
                name: t
                duration: 10s
                server: { service-time: { distribution: constant, mean: 20ms }, limit: { scope: per-client, policies: [ { name: b, q: 5 } ] } }
                fleet:
                  sdk: { retry: { max-attempts: 2, backoff-base: 1.5s }, pacer: { per-second: 10, burst: 10 } }
                  app-retry: { attempts: 2, reuse-idempotency-key: false }
                """;
        Scenario a = ScenarioReader.read("k.yaml", new StringReader(kebab));
        Scenario b = ScenarioReader.read("s.yaml", new StringReader(kebab.replace("service-time", "service_time")
                .replace("per-client", "per_client").replace("max-attempts", "max_attempts")
                .replace("backoff-base", "backoff_base").replace("per-second", "per_second")
                .replace("app-retry", "app_retry").replace("reuse-idempotency-key", "reuse_idempotency_key")));

        assertThat(b.variants()).isEqualTo(a.variants());
        assertThat(a.warnings()).isEmpty();
        assertThat(a.variants().get(0).fleet().sdk().client().retry().backoffBase()).isEqualTo(Duration.ofMillis(1500));
        assertThat(b.warnings()).extracting(ConfigProblem::toString).containsExactly(
                "s.yaml:3: server.service-time: \"service_time\" is the deprecated spelling; write \"service-time\"",
                "s.yaml:5: fleet.sdk.retry.max-attempts: \"max_attempts\" is the deprecated spelling; write \"max-attempts\"",
                "s.yaml:5: fleet.sdk.retry.backoff-base: \"backoff_base\" is the deprecated spelling; write \"backoff-base\"",
                "s.yaml:5: fleet.sdk.pacer.per-second: \"per_second\" is the deprecated spelling; write \"per-second\"",
                "s.yaml:6: fleet.app-retry: \"app_retry\" is the deprecated spelling; write \"app-retry\"",
                "s.yaml:6: fleet.app-retry.reuse-idempotency-key: \"reuse_idempotency_key\" is the deprecated spelling;"
                        + " write \"reuse-idempotency-key\"");
    }

    @Test
    void aBadValueIsReportedWithFileLineAndField() {
        assertThat(problems("""
                name: t
                duration: 10s
                fleet:
                  sdk:
                    throttle: { k: 0.5 }
                """)).containsExactly("s.yaml:5: fleet.sdk.throttle.k: must be in 1..1000, was 0.5");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        List<String> p = problems("""
                name: t
                duration: ten seconds
                server:
                  outages:
                    - { from: 5s, to: 2s, status: 500 }
                fleet:
                  clients: 0
                  arrivals: { proces: poisson }
                """);
        assertThat(p).containsExactlyInAnyOrder(
                "s.yaml:2: duration: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"ten seconds\"",
                "s.yaml:5: server.outages[0].to: must be after from (5s), was 2s",
                "s.yaml:5: server.outages[0].status: must be 429 or 503, was 500",
                "s.yaml:7: fleet.clients: must be in 1..1000000, was 0",
                "s.yaml:8: fleet.arrivals.proces: unknown field; did you mean \"process\"? (expected one of every, from, process, rate, size, to)");
    }

    @Test
    void aMissingDurationAndNameAreRequired() {
        assertThat(problems("fleet: { clients: 3 }\n")).contains("s.yaml:1: name: required",
                "s.yaml:1: duration: required (simulated time, e.g. 60s)");
    }

    @Test
    void aGridWhoseExpectedTableDoesNotFitIsRefused() {
        assertThat(problems("""
                name: g
                duration: 5s
                grid:
                  rows: { label: K, values: [ { name: "2" } ] }
                  columns: { label: r, values: [ { name: a }, { name: b } ] }
                  metric: drop_fraction
                  expected: [ [1] ]
                """)).containsExactly("s.yaml:7: grid.expected[0]: must have one value per column (2), has 1");
    }

    @Test
    void aFileIsNamedInItsProblems() throws IOException {
        Path f = Files.writeString(dir.resolve("broken.yaml"), "name: x\nduration: 5s\nfleet: { clients: -1 }\n");
        assertThatThrownBy(() -> ScenarioReader.read(f)).isInstanceOf(ConfigException.class)
                .hasMessage(f + ":3: fleet.clients: must be in 1..1000000, was -1");
    }

    @Test
    void malformedYamlNamesTheLine() {
        assertThat(problems("name: x\nduration: 5s\nfleet: { clients: [\n")).singleElement()
                .asString().startsWith("s.yaml:3: not valid YAML");
    }
}
