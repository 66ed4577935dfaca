package dev.sluice.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FREE_PLAN = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
            keys:
              k1: free
            """;

    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private Path trace(List<String> lines) throws IOException {
        return Files.write(dir.resolve("trace.csv"), lines);
    }

    private CliRun replay(Path config, Path trace, String start) {
        return CliRun.of("replay", "--config", config.toString(), "--trace", trace.toString(), "--start", start);
    }

    @Test
    void firstRequestOfTheDayPrintsTheDocumentedLine() throws IOException {
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of("t_ms,key,cost", "0,k1,1")), "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isZero();
        // the README's example line, plus the outcome member
        assertThat(run.outLines()).containsExactly("{\"t_ms\":0,\"key\":\"k1\",\"allowed\":true,\"status\":200,"
                + "\"outcome\":\"ok\",\"limit\":null,\"retry_after_s\":null,"
                + "\"ratelimit_policy\":\"\\\"burst\\\";q=20;w=2, \\\"daily\\\";q=10000;w=86400\","
                + "\"ratelimit\":\"\\\"burst\\\";r=19;t=1, \\\"daily\\\";r=9999;t=21600\"}");
    }

    @Test
    void sevenThousandSixHundredNinetyRequestsLeaveTheSpecRemainingAt1800() throws IOException {
        // SPEC §2.1: 7,690 of the day spent at 18:00 UTC -> "daily";r=2310;t=21600
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 7_689; i++) {
            lines.add((i * 8_000L) + ",k1,1"); // one every 8 s from 00:00, done by 17:05
        }
        lines.add("64800000,k1,1"); // the 7,690th at 18:00:00
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(lines), "2026-11-30T00:00:00Z");

        assertThat(run.exitCode()).isZero();
        assertThat(run.outLines()).hasSize(7_690);
        JsonNode last = JSON.readTree(run.outLines().get(7_689));
        assertThat(last.get("allowed").asBoolean()).isTrue();
        assertThat(last.get("ratelimit").asText()).endsWith("\"daily\";r=2310;t=21600");
    }

    @Test
    void spentDailyQuotaAt1840SaysDailyAndNineteenThousandTwoHundredSeconds() throws IOException {
        // SPEC §3.4: at 18:40 UTC with the day spent, limit "daily" and retry_after_s 19200 (to 00:00)
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            lines.add((i * 6_000L) + ",k1,1"); // 10,000 requests, one every 6 s from 00:00, done by 16:40
        }
        lines.add("67200000,k1,1"); // 18:40:00
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(lines), "2026-11-30T00:00:00Z");

        assertThat(run.exitCode()).isZero();
        JsonNode denial = JSON.readTree(run.outLines().get(10_000));
        assertThat(denial.get("status").asInt()).isEqualTo(429);
        assertThat(denial.get("outcome").asText()).isEqualTo("quota_exhausted");
        assertThat(denial.get("limit").asText()).isEqualTo("daily");
        assertThat(denial.get("retry_after_s").asLong()).isEqualTo(19_200);
        assertThat(denial.get("ratelimit").asText()).endsWith("\"daily\";r=0;t=19200"); // t = Retry-After (§2.3)
    }

    @Test
    void costAboveTheBurstIsA400WithoutRetryAfter() throws IOException {
        // SPEC §3.10, R14a: a cost of 25 can never fit a burst of 20; waiting cannot help
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of("0,k1,25", "1,k1,1")), "2026-11-30T18:00:00Z");

        JsonNode rejected = JSON.readTree(run.outLines().get(0));
        assertThat(rejected.get("status").asInt()).isEqualTo(400);
        assertThat(rejected.get("outcome").asText()).isEqualTo("cost_exceeds_burst");
        assertThat(rejected.get("retry_after_s").isNull()).isTrue();
        // nothing was charged: the next request sees a full bucket minus one
        assertThat(JSON.readTree(run.outLines().get(1)).get("ratelimit").asText()).startsWith("\"burst\";r=19;");
    }

    @Test
    void unknownKeyIsA401AndReportsNoLimits() throws IOException {
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of("0,nobody,1")), "2026-11-30T18:00:00Z");

        JsonNode line = JSON.readTree(run.outLines().get(0));
        assertThat(line.get("status").asInt()).isEqualTo(401);
        assertThat(line.get("ratelimit").isNull()).isTrue();
    }

    @Test
    void malformedTraceLineStopsWithItsLineNumber() throws IOException {
        Path trace = trace(List.of("t_ms,key,cost", "0,k1,1", "ten,k1,1", "20,k1,1"));
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace, "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.outLines()).hasSize(1); // line 2 was replayed, nothing after line 3
        assertThat(run.err()).contains(trace + ":3: t_ms: must be a non-negative whole number, was \"ten\"");
    }

    @Test
    void timeGoingBackwardsIsAnError() throws IOException {
        Path trace = trace(List.of("100,k1,1", "50,k1,1"));
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace, "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(trace + ":2: t_ms: must not go backwards");
    }

    @Test
    void invalidConfigurationNamesFileLineAndField() throws IOException {
        Path config = write("bad.yaml", FREE_PLAN.replace("q: 20", "q: 0"));
        CliRun run = replay(config, trace(List.of("0,k1,1")), "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("bad.yaml:4:").contains("q").contains("must be > 0");
    }

    @Test
    void missingTraceFileIsAOneLineError() throws IOException {
        CliRun run = replay(write("c.yaml", FREE_PLAN), dir.resolve("absent.csv"), "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("sluice replay:").contains("absent.csv: no such file");
    }

    @Test
    void aFirstLineThatIsNeitherTheHeaderNorARequestIsAnErrorNotSkipped() throws IOException {
        for (String first : List.of("-5,k1,1", "+5,k1,1", "x5,k1,1")) {
            CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of(first, "10,k1,1")), "2026-11-30T18:00:00Z");
            assertThat(run.exitCode()).as(first).isEqualTo(2);
            assertThat(run.err()).as(first).contains(":1: t_ms: must be a non-negative whole number");
        }
    }

    @Test
    void aByteOrderMarkBeforeTheFirstRequestIsIgnored() throws IOException {
        Path trace = Files.writeString(dir.resolve("bom.csv"), "\uFEFF0,k1,1\n10,k1,1\n");
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace, "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).isZero();
        assertThat(run.outLines()).hasSize(2);
    }

    @Test
    void timesBeyondAHundredYearsAreRefusedWithTheLineNumberInsteadOfOverflowing() throws IOException {
        CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of("0,k1,1", "9223372036855,k1,1")), "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(":2: t_ms: must be at most").doesNotContain("Exception");
    }

    @Test
    void startOutsideTheLimitersCalendarIsRefused() throws IOException {
        for (String start : List.of("1969-12-31T18:00:00Z", "+1000000000-12-31T23:59:58Z")) {
            CliRun run = replay(write("c.yaml", FREE_PLAN), trace(List.of("5000,k1,1")), start);
            assertThat(run.exitCode()).as(start).isEqualTo(2);
            assertThat(run.err()).as(start).contains("--start: must be between 1970-01-01T00:00:00Z and");
        }
    }

    @Test
    void aConfigurationWithoutKeysIsRefused() throws IOException {
        Path config = write("nokeys.yaml", FREE_PLAN.substring(0, FREE_PLAN.indexOf("keys:")));
        CliRun run = replay(config, trace(List.of("0,k1,1")), "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("no API keys configured");
    }

    @Test
    void anUnknownTopLevelSectionIsAWarningAndTheEdgesSectionsAreNot() throws IOException {
        Path config = write("edge.yaml", "listen: 8080\nroutes: []\nratelimit-fields: off\n" + FREE_PLAN);
        CliRun run = replay(config, trace(List.of("0,k1,1")), "2026-11-30T18:00:00Z");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEqualTo("sluice replay: warning: " + config + ":3: ratelimit-fields: unknown section;"
                + " did you mean \"rate-limit-fields\"?, ignored" + System.lineSeparator());
        assertThat(run.outLines()).hasSize(1);
    }

    @Test
    void aMisspelledKeysSectionIsNamedWithItsLine() throws IOException {
        Path config = write("typo.yaml", FREE_PLAN.replace("keys:", "kyes:"));
        CliRun run = replay(config, trace(List.of("0,k1,1")), "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("typo.yaml:").contains("unknown section \"kyes\"; did you mean \"keys\"?");
    }

    @Test
    void aBadPolicyNameIsReportedAtTheNameField() throws IOException {
        Path config = write("name.yaml", FREE_PLAN.replace("name: burst", "name: \"b\u00fcrst\""));
        CliRun run = replay(config, trace(List.of("0,k1,1")), "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("plans.free.policies[0].name: must be printable ASCII");
    }
}
