package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.report.ReportFiles;
import dev.sluice.sim.report.SeriesWriter;
import dev.sluice.sim.report.TerminalTable;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC §7.1: seeded; the same seed gives byte-identical output, in every output format. */
class DeterminismTest {

    /** Everything random at once: Poisson arrivals, jitter, throttle draws, exponential service. */
    static final String NOISY = """
            name: noisy
            duration: 40s
            server:
              rtt: 30ms
              service_time: { distribution: exponential, mean: 40ms }
              limit: { scope: per_client, policies: [ { name: burst, q: 5, w: 1 } ] }
              capacity: { max_concurrent: 30 }
              outages: [ { from: 10s, to: 15s, status: 503 } ]
            fleet:
              clients: 50
              arrivals: { process: poisson, rate: 4 }
              call: { deadline: 8s }
            variants:
              - { name: sdk }
              - { name: app loop, fleet: { app_retry: { attempts: 3, base: 500ms, jitter: true, on: [429, 503] } } }
            """;

    @TempDir
    Path dir;

    private static Scenario noisy() {
        return ScenarioReader.read("noisy.yaml", new StringReader(NOISY));
    }

    private static String everything(SimulationResult r) {
        StringWriter out = new StringWriter();
        SeriesWriter.jsonLines(r, out);
        SeriesWriter.csv(r, out);
        TerminalTable.print(r, new PrintWriter(out), true);
        return out.toString();
    }

    @Test
    void theSameSeedGivesByteIdenticalSeriesTablesChartsAndReports() throws IOException {
        SimulationResult a = Simulation.run(noisy(), 7, null);
        SimulationResult b = Simulation.run(noisy(), 7, null);

        assertThat(everything(b)).isEqualTo(everything(a));
        ReportFiles.write(a, dir.resolve("a"));
        ReportFiles.write(b, dir.resolve("b"));
        for (String f : ReportFiles.FILES) {
            assertThat(Files.readAllBytes(dir.resolve("b").resolve(f))).as(f)
                    .isEqualTo(Files.readAllBytes(dir.resolve("a").resolve(f)));
        }
    }

    @Test
    void anotherSeedGivesAnotherRun() {
        assertThat(everything(Simulation.run(noisy(), 8, null))).isNotEqualTo(everything(Simulation.run(noisy(), 7, null)));
    }

    @Test
    void theRunExercisesTheLimiterTheShedderAndTheRetryPaths() {
        SimulationResult r = Simulation.run(noisy(), 7, null);
        long rejected = r.variants().get(0).rows().stream().mapToLong(SecondRow::rejected).sum();
        long retries = r.variants().get(0).rows().stream().mapToLong(SecondRow::retries).sum();
        long appRetries = r.variants().get(1).rows().stream().mapToLong(SecondRow::retries).sum();
        assertThat(rejected).isPositive();
        assertThat(retries).isPositive();
        assertThat(appRetries).isGreaterThan(retries); // a second layer of retries adds requests (SPEC §4.7)
    }
}
