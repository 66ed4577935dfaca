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
            server: { outages: [ { from: 0s, to: 3s, status: 503, retry_after: 3s } ] }
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
    void jsonPrintsTheSeriesAsJsonLines() throws IOException {
        CliRun run = CliRun.of("simulate", "--scenario", scenario().toString(), "--json", "--seed", "3");

        assertThat(run.exitCode()).isZero();
        assertThat(run.outLines()).hasSize(2 * 12 + 2);
        JsonNode second3 = JSON.readTree(run.outLines().get(3));
        assertThat(second3.get("variant").asText()).isEqualTo("no jitter");
        assertThat(second3.get("second").asInt()).isEqualTo(3);
        assertThat(second3.get("requests").asLong()).isEqualTo(200);
        assertThat(JSON.readTree(run.outLines().get(25)).get("headline").get("peak_requests_per_s").asDouble()).isPositive();
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
}
