package dev.sluice.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Tag("slow")
@Timeout(120)
class DemoCommandTest {

    @Test
    void aShortRunPrintsTheTableAndWritesTheReportItNames(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("out/demo-report.html");

        // the default --config, examples/shiplane.yaml, is found from the module's folder too
        CliRun run = CliRun.of("demo", "--clients", "10", "--duration", "2", "--no-blip", "--report", report.toString(),
                "--edge-log", dir.resolve("edge.log").toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("10 clients for 2 s, once per client: naive, careful, Sluice SDK", "no blip",
                "   s   offered  admitted", "comparison: the same fleet", "report: " + report.toAbsolutePath());
        // two seconds of each of the three clients
        assertThat(run.outLines().stream().filter(l -> l.matches("^\\s+[01]\\s+\\d+.*"))).hasSize(6);
        assertThat(Files.readString(report)).contains("<svg id=\"chart-traffic-naive\"", "<svg id=\"chart-traffic-sdk\"",
                "data-second=\"1\"");
    }

    @Test
    void oneClientCanRunAloneAndPlainIsCarefulsFormerName(@TempDir Path dir) {
        CliRun run = CliRun.of("demo", "--clients", "5", "--duration", "1", "--no-blip", "--client", "plain",
                "--report", dir.resolve("r.html").toString(), "--edge-log", dir.resolve("edge.log").toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("once per client: careful", "[1/1] careful: ").doesNotContain("[2/");
    }

    @Test
    void badOptionsAreRefusedWithExitCode2AndOneLine() {
        CliRun clients = CliRun.of("demo", "--clients", "0");
        assertThat(clients.exitCode()).isEqualTo(2);
        assertThat(clients.err().strip()).isEqualTo("sluice demo: --clients must be 1..5000, was 0");

        CliRun blip = CliRun.of("demo", "--duration", "10", "--blip-at", "10");
        assertThat(blip.exitCode()).isEqualTo(2);
        assertThat(blip.err()).contains("--blip-at must be within the run (0..9 seconds), was 10");

        CliRun client = CliRun.of("demo", "--client", "curl");
        assertThat(client.exitCode()).isEqualTo(2);
        assertThat(client.err()).contains("--client must be all, naive, careful or sdk (or a comma-separated list of"
                + " them), was curl");

        CliRun twice = CliRun.of("demo", "--client", "sdk,naive,sdk");
        assertThat(twice.exitCode()).isEqualTo(2);
        assertThat(twice.err()).contains("--client names a client twice: sdk,naive,sdk");
    }

    @Test
    void helpSaysCtrlCExits130AndThatTheReportsFoldersAreCreated() {
        CliRun help = CliRun.of("demo", "--help");

        assertThat(help.exitCode()).isZero();
        // the JVM exits 128 + SIGINT after the shutdown hook wrote the report (sluice-examples/README.md)
        assertThat(help.out()).contains("exits 130", "130   stopped with Ctrl-C (SIGINT); the report of what ran was written",
                "missing parent directories are created").doesNotContain("or was stopped with Ctrl-C");
    }

    @Test
    void theDefaultBlipIsShortenedToEndWithAShortRun(@TempDir Path dir) {
        // --duration 2 puts the blip at 1 s; its default 5 s would have ended at 6 s, after the run
        CliRun run = CliRun.of("demo", "--clients", "5", "--duration", "2", "--client", "sdk", "--report",
                dir.resolve("r.html").toString(), "--edge-log", dir.resolve("edge.log").toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("blip from 1 s to 2 s").doesNotContain("to 6 s");
    }

    @Test
    void theRecoveryCapacityIsTheLimitOffOrAPositiveNumber() {
        assertThat(DemoCommand.recoveryCapacity("limit")).isZero();
        assertThat(DemoCommand.recoveryCapacity("off")).isInfinite();
        assertThat(DemoCommand.recoveryCapacity("1200")).isEqualTo(1200.0);
        CliRun run = CliRun.of("demo", "--recovery-capacity", "0");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--recovery-capacity must be a number of requests/s > 0, limit or off, was 0");
    }

    @Test
    void aBlipLengthGivenThatDoesNotFitTheRunIsRefused() {
        CliRun run = CliRun.of("demo", "--duration", "2", "--blip-for", "5");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("sluice demo: the blip (--blip-at 1 --blip-for 5) would end at 6 s, "
                + "after the 2 s run: use --blip-for 1 or less, an earlier --blip-at, or a longer --duration");
    }

    @Test
    void aMissingConfigurationIsNamed(@TempDir Path dir) {
        CliRun run = CliRun.of("demo", "--config", dir.resolve("nope.yaml").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("sluice demo: cannot read " + dir.resolve("nope.yaml"));
    }

    @Test
    void anInvalidConfigurationListsItsProblems(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "plans:\n  free:\n    policies:\n      - { name: burst, kind: burst, q: -1, w: 2 }\n");

        CliRun run = CliRun.of("demo", "--config", bad.toString(), "--duration", "1", "--edge-log",
                dir.resolve("edge.log").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice demo: invalid configuration:").contains("bad.yaml:4");
    }

    @Test
    void aConfigurationWithoutTheDemosPlansIsRefusedByName(@TempDir Path dir) throws Exception {
        Path other = dir.resolve("other.yaml");
        Files.writeString(other, "plans:\n  basic:\n    policies:\n      - { name: burst, kind: burst, q: 20, w: 2 }\n");

        CliRun run = CliRun.of("demo", "--config", other.toString(), "--duration", "1", "--edge-log",
                dir.resolve("edge.log").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("the demo needs a plan named \"free\"; found [basic]");
    }
}
