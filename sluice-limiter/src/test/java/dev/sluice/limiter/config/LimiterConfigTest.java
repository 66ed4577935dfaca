package dev.sluice.limiter.config;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.quota.CalendarWindow;
import java.io.StringReader;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimiterConfigTest {

    private static Path resource(String name) {
        try {
            return Path.of(LimiterConfigTest.class.getResource("/config/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static LimiterConfig readString(String yaml) {
        ConfigNode root = ConfigNode.parse("config.yaml", null, new StringReader(yaml));
        ConfigProblems problems = new ConfigProblems();
        LimiterConfig config = LimiterConfig.read(root, problems);
        problems.throwIfAny();
        return config;
    }

    @Test
    void theFreePlanOfSpec21Loads() {
        LimiterConfig config = LimiterConfig.load(resource("free-plan.yaml"));

        assertThat(config.plans().get("free")).isEqualTo(Plan.of("free",
                BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000)));
        assertThat(config.plans().get("pro").policies()).containsExactly(
                BurstPolicy.of("burst", 200, 2),
                QuotaPolicy.monthly("monthly", 5_000_000, 1),
                new BurstPolicy("upload", 10_000_000, 1, QuotaUnit.CONTENT_BYTES, null));
        assertThat(config.binding("sk_test_free_1").orElseThrow().plan()).isSameAs(config.plans().get("free"));
    }

    @Test
    void aKeysRenewalDayAnchorsItsMonthlyQuota() {
        LimiterConfig config = LimiterConfig.load(resource("free-plan.yaml"));

        KeyBinding pro = config.binding("sk_test_pro_1").orElseThrow();

        assertThat(pro.renewalDay()).isEqualTo(15);
        assertThat(((QuotaPolicy) pro.plan().policy(1)).window()).isEqualTo(CalendarWindow.monthly(15));
        assertThat(pro.plan().name()).isEqualTo("pro");
    }

    @Test
    void keysComeFromTheKeyFileToo() {
        LimiterConfig config = LimiterConfig.load(resource("free-plan.yaml"));

        assertThat(config.keys()).containsOnlyKeys("sk_test_free_1", "sk_test_pro_1", "sk_test_free_2", "sk_test_pro_2");
        assertThat(((QuotaPolicy) config.binding("sk_test_pro_2").orElseThrow().plan().policy(1)).window())
                .isEqualTo(CalendarWindow.monthly(31));
    }

    @Test
    void anErrorNamesFileLineAndField() {
        String yaml = """
                plans:
                  free:
                    policies:
                      - name: burst
                        kind: burst
                        w: 2
                        q: 0
                """;

        assertThatThrownBy(() -> readString(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config.yaml:7: plans.free.policies[0].q: must be > 0, was 0");
    }

    @Test
    void everyProblemIsReportedNotOnlyTheFirst() {
        Path file = resource("broken.yaml");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> LimiterConfig.load(file));

        List<String> lines = e.problems().stream()
                .map(p -> p.line() + ": " + p.path() + ": " + p.message()).toList();
        assertThat(lines).containsExactly(
                "4: plans.free.policies[0].q: must be > 0, was 0",
                "5: plans.free.policies[1].window: must be daily or monthly, was \"weekly\"",
                "6: plans.free.policies[2].name: duplicate policy name \"burst\" (first at line 4)",
                "8: plans.pro.policies: must not be empty (a plan needs at least one policy)",
                "11: plans.team.policies[0].kind: must be burst, quota or concurrency, was \"bucket\"",
                "12: plans.team.policies[1].q: must be an integer, was \"many\"",
                "12: plans.team.policies[1].w: not allowed here: a quota policy's window sets w (daily 86400, monthly 2592000)",
                "13: plans.team.policies[2].qq: unknown field; did you mean \"q\"? (expected one of name, kind, q, w, window, anchor-day, unit, pk)",
                "13: plans.team.policies[2].unit: concurrent-requests is the unit of kind: concurrency, not of a burst or quota policy",
                "16: keys.sk_b: unknown plan \"gold\" (plans: free, pro, team)",
                "17: keys.sk_c.renewal-day: must be in 1..31, was 40",
                "18: key-file: cannot read key file " + file.getParent().resolve("missing-keys.yaml"));
        assertThat(e.problems()).allSatisfy(p -> assertThat(p.source()).isEqualTo(file.toString()));
    }

    @Test
    void duplicatePolicyNamesAreReportedAtTheSecondName() {
        String yaml = """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 1 }
                      - { name: burst, kind: quota, q: 5, window: daily }
                """;

        assertThatThrownBy(() -> readString(yaml))
                .hasMessage("config.yaml:5: plans.free.policies[1].name: duplicate policy name \"burst\" (first at line 4)");
    }

    @Test
    void duplicateYamlKeysAreReported() {
        String yaml = """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 1 }
                keys:
                  sk_1: free
                  sk_1: free
                """;

        assertThatThrownBy(() -> readString(yaml))
                .hasMessage("config.yaml:7: keys.sk_1: duplicate key (first at line 6)");
    }

    @Test
    void malformedYamlIsAConfigExceptionWithTheLine() {
        String yaml = "plans:\n  free: [unclosed\n";

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> readString(yaml));

        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().get(0).message()).startsWith("not valid YAML: ");
        assertThat(e.problems().get(0).line()).isPositive();
    }

    @Test
    void missingPlansAndMissingRequiredFieldsAreNamed() {
        assertThatThrownBy(() -> readString("keys: {}\n"))
                .hasMessage("config.yaml:1: plans: required (at least one plan)");
        assertThatThrownBy(() -> readString("plans:\n  free:\n    policies:\n      - { kind: burst, q: 5 }\n"))
                .hasMessage("config.yaml:4: plans.free.policies[0]: name: required\n"
                        + "config.yaml:4: plans.free.policies[0]: w: required");
    }

    @Test
    void yamlIntegerSpellingsAreReadAsIntegers() {
        LimiterConfig config = readString("""
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 0x14, w: +2 }
                      - { name: daily, kind: quota, q: 10_000, window: daily }
                """);

        assertThat(config.plans().get("free").policies())
                .containsExactly(BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
    }

    @Test
    void anIntegerBeyond64BitsIsAProblemNotAnOverflow() {
        assertThatThrownBy(() -> readString("""
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 99999999999999999999, w: 2 }
                """)).hasMessage("config.yaml:4: plans.free.policies[0].q: must be an integer that fits in 64 bits,"
                        + " was 99999999999999999999");
    }

    @Test
    void unknownTopLevelSectionsAreLeftToOtherReaders() {
        LimiterConfig config = readString("""
                listen: 0.0.0.0:8080
                routes: [ { path: /v1/x, cost: 10 } ]
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 1 }
                """);

        assertThat(config.plans()).containsOnlyKeys("free");
        assertThat(config.keys()).isEmpty();
    }

    @Test
    void aConcurrencyPolicyIsReadWithItsUnitImplied() {
        LimiterConfig config = readString("""
                plans:
                  busy:
                    policies:
                      - { name: inflight, kind: concurrency, q: 10 }
                      - { name: both, kind: concurrency, q: 4, unit: concurrent-requests }
                keys: { sk_1: busy }
                """);
        assertThat(config.binding("sk_1").orElseThrow().plan().policies())
                .containsExactly(ConcurrencyPolicy.of("inflight", 10), ConcurrencyPolicy.of("both", 4));
    }

    @Test
    void concurrentRequestsBelongsToKindConcurrencyOnly() {
        assertThatThrownBy(() -> readString("plans:\n  p:\n    policies:\n"
                + "      - { name: b, kind: burst, q: 5, w: 1, unit: concurrent-requests }\n"))
                .hasMessage("config.yaml:4: plans.p.policies[0].unit: concurrent-requests is the unit of kind:"
                        + " concurrency, not of a burst or quota policy");
        assertThatThrownBy(() -> readString("plans:\n  p:\n    policies:\n"
                + "      - { name: c, kind: concurrency, q: 5, w: 1 }\n"))
                .hasMessageContaining("plans.p.policies[0].w: not allowed here: a concurrency policy counts requests in flight");
        assertThatThrownBy(() -> readString("plans:\n  p:\n    policies:\n"
                + "      - { name: c, kind: concurrency, q: 5, unit: requests }\n"))
                .hasMessageContaining("plans.p.policies[0].unit: a concurrency policy counts concurrent-requests");
        assertThatThrownBy(() -> readString("plans:\n  p:\n    policies:\n"
                + "      - { name: c, kind: lanes, q: 5 }\n"))
                .hasMessageContaining("must be burst, quota or concurrency");
    }
}
