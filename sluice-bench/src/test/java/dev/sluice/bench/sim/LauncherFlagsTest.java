package dev.sluice.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The simulator benchmark measures what users run: the JVM flags the {@code sluice} launcher gives
 * {@code sluice simulate} are {@link SimRun#LAUNCHER_FLAGS}, and no others reach other subcommands.
 */
class LauncherFlagsTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("sluice.testdata")).getParent().resolve("sluice");

    /** The launcher's JVM options for {@code args}: its own lines that compute them, run by bash. */
    private static List<String> jvmOptions(String env, String... args) throws IOException, InterruptedException {
        String script = Files.readString(LAUNCHER, StandardCharsets.UTF_8);
        int from = script.indexOf("opts=(");
        int to = script.indexOf("exec \"$JAVA_HOME/bin/java\"");
        assertThat(from).as("the launcher sets opts").isPositive();
        assertThat(to).as("the launcher execs java").isGreaterThan(from);
        String probe = "set -euo pipefail\n" + script.substring(from, to)
                + "printf '%s\\n' ${opts[@]+\"${opts[@]}\"}\n";
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", probe, "sluice"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("SLUICE_JAVA_OPTS");
        if (env != null) {
            pb.environment().put("SLUICE_JAVA_OPTS", env);
        }
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void simulateRunsWithTheFlagsTheBenchmarkMeasures() throws Exception {
        assertThat(jvmOptions(null, "simulate", "--scenario", "jitter-blip")).isEqualTo(SimRun.LAUNCHER_FLAGS);
    }

    @Test
    void otherSubcommandsRunWithTheJvmDefaults() throws Exception {
        assertThat(jvmOptions(null, "edge", "--config", "x.yaml")).isEmpty();
        assertThat(jvmOptions(null, "demo")).isEmpty();
        assertThat(jvmOptions(null)).isEmpty();
    }

    @Test
    void sluiceJavaOptsReplaceThemForEverySubcommand() throws Exception {
        assertThat(jvmOptions("-Xmx1g -XX:+UseG1GC", "simulate")).containsExactly("-Xmx1g", "-XX:+UseG1GC");
        assertThat(jvmOptions("-Xmx1g", "edge")).containsExactly("-Xmx1g");
    }
}
