package dev.sluice.cli.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.CliRun;
import org.junit.jupiter.api.Test;

class UpstreamCommandTest {

    @Test
    void aJitterLargerThanTheLatencyIsRefused() {
        CliRun run = CliRun.of("upstream", "--latency-ms", "5", "--jitter-ms", "10");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("sluice upstream: latency jitter PT0.01S exceeds the latency PT0.005S");
    }

    @Test
    void anImpossiblePortIsRefused() {
        CliRun run = CliRun.of("upstream", "--port", "70000");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("port must be 0..65535: 70000");
    }

    @Test
    void helpListsTheRoutes() {
        CliRun run = CliRun.of("upstream", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("POST /v1/labels (needs Idempotency-Key)", "--port");
    }
}
