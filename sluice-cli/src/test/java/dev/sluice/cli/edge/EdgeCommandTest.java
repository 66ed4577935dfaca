package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EdgeCommandTest {

    @Test
    void anInvalidConfigurationExits2WithEveryProblemLocated(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 0, w: 2 }
                routes:
                  - { method: GET, path: nope }
                """);
        CliRun run = CliRun.of("edge", "--config", file.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(file + ":4: plans.free.policies[0].q: must be > 0, was 0")
                .contains(file + ":6: routes[0].path: must start with /, was \"nope\"")
                .doesNotContain("Exception");
    }

    @Test
    void theShippedShiplaneConfigurationRunsAndServesTheUsageEndpoint() throws Exception {
        Path shiplane = Path.of(System.getProperty("sluice.testdata")).getParent().resolve("examples/shiplane.yaml");
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.PrintWriter pw = new java.io.PrintWriter(out, true);
        Thread t = new Thread(() -> dev.sluice.cli.Main.newCommandLine().setOut(pw).setErr(pw)
                .execute("edge", "--config", shiplane.toString(), "--port", "0", "--admin-port", "0", "--no-watch"));
        t.start();
        try {
            Pattern listening = Pattern.compile("listening on [^ /]*:(\\d+) ");
            Matcher m = await("the start-up line").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> listening.matcher(out.toString()), Matcher::find);
            // the address as configured (shiplane.yaml: 0.0.0.0), not the socket's "/0:0:0:0:0:0:0:0:port"
            assertThat(out.toString()).contains("sluice edge: listening on 0.0.0.0:" + m.group(1) + " (");
            assertThat(m.find(0)).as(out.toString()).isTrue();
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + m.group(1) + "/v1/usage"))
                    .header("Authorization", "Bearer sk_test_free_1").timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
        } finally {
            t.interrupt();
            t.join(10_000);
        }
        assertThat(t.isAlive()).isFalse();
    }

    @Test
    void theEdgesLogLinesCarryAnIso8601Timestamp(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, """
                listen: 0
                admin: off
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2 }
                keys:
                  sk_1: free
                """);
        try (EdgeProcesses edges = EdgeProcesses.start(1, file)) {
            String line = edges.log(0).lines().filter(l -> l.contains("edge listening on")).findFirst().orElseThrow();
            // simplelogger.properties of the sluice command: 2026-11-30T17:52:32.123Z [main] INFO dev.sluice...
            assertThat(line).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) "
                    + "\\[main\\] INFO dev\\.sluice\\.edge\\.EdgeServer - edge listening on .*");
        }
    }
}
