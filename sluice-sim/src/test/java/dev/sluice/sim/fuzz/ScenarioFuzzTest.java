package dev.sluice.sim.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.ConfigException;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the simulator's scenario reader: any text either reads or is rejected with
 * {@link ConfigException}, its documented exception; nothing else escapes (a scenario that reads is
 * not run). Seeds: the built-in scenarios ({@code bin/fuzz-seeds}).
 */
@Tag("slow")
public class ScenarioFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new ScenarioFuzzTest().readsOrRejectsWithConfigException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void readsOrRejectsWithConfigException(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        try {
            ScenarioReader.read("fuzz.yaml", new StringReader(yaml));
        } catch (ConfigException expected) {
            // documented
        }
    }
}
