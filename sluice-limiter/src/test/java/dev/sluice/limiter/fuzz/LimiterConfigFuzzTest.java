package dev.sluice.limiter.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.limiter.config.LimiterConfig;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the limiter's YAML reader ({@code plans}, {@code keys}): any text either reads or is
 * rejected with {@link ConfigException}, its documented exception (problems with file, line and
 * field); nothing else escapes. Seeds: the YAML files of {@code examples/} and the limiter's own
 * test inputs ({@code bin/fuzz-seeds}).
 */
@Tag("slow")
public class LimiterConfigFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new LimiterConfigFuzzTest().readsOrRejectsWithConfigException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void readsOrRejectsWithConfigException(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        try {
            ConfigNode root = ConfigNode.parse("fuzz.yaml", null, new StringReader(yaml));
            ConfigProblems problems = new ConfigProblems();
            LimiterConfig.read(root, problems);
            problems.throwIfAny();
        } catch (ConfigException expected) {
            // documented
        }
    }
}
