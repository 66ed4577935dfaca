package dev.sluice.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BLIP = """
            name: small-blip
            duration: 12s
            server: { outages: [ { from: 0s, to: 3s, status: 503, retry-after: 3s } ] }
            fleet: { clients: 200, arrivals: { process: burst, size: 1 }, sdk: { throttle: { enabled: false } } }
            variants: [ { name: no jitter, fleet: { sdk: { retry: { jitter: false } } } }, { name: jitter } ]
            """;

    @TempDir
    Path dir;

    private Path scenario() throws IOException {
        return Files.writeString(dir.resolve("blip.yaml"), BLIP);
    }

    @Test
    void printsAPerSecondTableOnStdoutAndNothingElse() throws IOException {
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).startsWith("small-blip (seed 1): 2 variant(s), 12 s simulated each");
        assertThat(run.outLines()).contains("== no jitter", "== jitter");
        // second 3 of "no jitter": all 200 clients retry at once
        assertThat(run.outLines()).anyMatch(l -> l.matches("\\s+3\\s+0\\s+200\\s+200\\s+200\\s+0\\s.*"));
    }

    @Test
    void aSnakeCaseScenarioStillRunsWithOneWarningPerDeprecatedKey() throws IOException {
        Path old = Files.writeString(dir.resolve("old.yaml"), BLIP.replace("retry-after:", "retry_after:"));

        CliRun run = CliRun.of("simulate", "--scenario", old.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEqualTo("sluice simulate: warning: " + old + ":3: server.outages[0].retry-after: "
                + "\"retry_after\" is the deprecated spelling; write \"retry-after\"" + System.lineSeparator());
        assertThat(run.outLines()).anyMatch(l -> l.matches("\\s+3\\s+0\\s+200\\s+200\\s+200\\s+0\\s.*"));
    }

    @Test
    void jsonPrintsTheSeriesAsJsonLines() throws IOException {
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString(), "--json", "--seed", "3");

        assertThat(run.exitCode()).isZero();
        assertThat(run.outLines()).hasSize(1 + 2 * 12 + 2);
        assertThat(JSON.readTree(run.outLines().get(0)).get("type").asText()).isEqualTo("scenario");
        JsonNode second3 = JSON.readTree(run.outLines().get(4));
        assertThat(second3.get("type").asText()).isEqualTo("second");
        assertThat(second3.get("variant").asText()).isEqualTo("no jitter");
        assertThat(second3.get("second").asInt()).isEqualTo(3);
        assertThat(second3.get("requests").asLong()).isEqualTo(200);
        JsonNode headline = JSON.readTree(run.outLines().get(26));
        assertThat(headline.get("type").asText()).isEqualTo("headline");
        assertThat(headline.get("headline").get("peak_requests_per_s").asDouble()).isPositive();
    }

    @Test
    void theSameSeedPrintsTheSameBytes() throws IOException {
        Path s = scenario();
        assertThat(CliRun.of("simulate", "--scenario", s.toString(), "--json").out())
                .isEqualTo(CliRun.of("simulate", "--scenario", s.toString(), "--json").out());
    }

    @Test
    void outWritesTheSeriesTheChartAndTheReport() throws IOException {
        Path out = dir.resolve("report");
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString(), "--out", out.toString(), "--summary");

        assertThat(run.exitCode()).isZero();
        assertThat(Files.readString(out.resolve("series.csv"))).startsWith("variant,second,calls,requests");
        assertThat(Files.readString(out.resolve("chart.svg"))).startsWith("<svg");
        assertThat(Files.readString(out.resolve("report.html"))).contains("<svg", "small-blip");
        assertThat(run.err()).contains("wrote " + out.resolve("report.html"));
        assertThat(run.out()).doesNotContain("second    calls"); // --summary: headline figures only
    }

    @Test
    void anUnknownScenarioNamesTheBuiltInOnes() {
        CliRun run = CliRun.of("simulate", "--scenario", "no-such-thing");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("no built-in scenario and no file named no-such-thing",
                "jitter-blip, retry-amplification, adaptive-throttle, littles-law");
    }

    @Test
    void anInvalidScenarioFileNamesFileLineAndField() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "name: x\nduration: 5s\nfleet:\n  sdk: { throttle: { k: 0 } }\n");
        CliRun run = CliRun.of("simulate", "--scenario", bad.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(bad + ":4: fleet.sdk.throttle.k: must be in 1..1000, was 0");
    }

    @Test
    void anUnknownHttpMethodIsOneLine() throws IOException {
        Path bad = Files.writeString(dir.resolve("m.yaml"), "name: x\nduration: 5s\nfleet:\n  call: { method: FETCH }\n");

        CliRun run = CliRun.of("simulate", "--scenario", bad.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("sluice simulate: invalid scenario: " + bad + ":4: fleet.call.method: must be"
                + " one of GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH (RFC 9110 §9.3, RFC 5789), was \"FETCH\"\n");
    }

    @Test
    void aRunLargerThanMaxCallsIsRefusedWithTheEstimateBeforeItStarts() throws IOException {
        // 200 clients × one burst × 2 variants = 400 calls
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString(), "--max-calls", "399");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("sluice simulate: the scenario would open about 400 calls (2 variants),"
                + " more than --max-calls 399 (about 0 s of wall time at 20 µs a call); raise --max-calls,"
                + " or simulate fewer clients or seconds\n");
        assertThat(CliRun.of("simulate", "--scenario", scenario().toString(), "--max-calls", "400").exitCode())
                .isZero();
    }

    @Test
    void progressGoesToStderrNeverIntoTheJsonLines() throws IOException {
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString(), "--json", "--progress", "always");

        assertThat(run.exitCode()).isZero();
        for (String line : run.outLines()) {
            assertThat(JSON.readTree(line).get("type").asText()).isIn("scenario", "second", "headline");
        }
        assertThat(run.err()).contains("simulating variant 2/2: 12/12 s simulated");
    }

    @Test
    void theProgressLineShowsWallTimeElapsedAndLeftAtMostOncePerSecond() {
        java.io.StringWriter text = new java.io.StringWriter();
        dev.sluice.time.ManualTimeSource clock = new dev.sluice.time.ManualTimeSource(
                java.time.Instant.parse("2026-01-01T00:00:00Z"));
        SimulateCommand.ProgressLine p = new SimulateCommand.ProgressLine(new java.io.PrintWriter(text), clock);

        p.onSecond(0, 2, 9, 100);
        assertThat(text.toString()).isEmpty(); // less than a second of wall time: nothing yet
        clock.advance(java.time.Duration.ofSeconds(2));
        p.onSecond(0, 2, 49, 100); // a quarter of the run in 2 s: 6 s left
        p.onSecond(0, 2, 50, 100); // same wall second: not redrawn

        assertThat(text.toString()).isEqualTo("\rsimulating variant 1/2: 50/100 s simulated, 2 s elapsed,"
                + " about 6 s left ");
    }
}
