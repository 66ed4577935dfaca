package dev.sluice.edge.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.edge.config.EdgeConfigReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the edge's configuration reader (every section: {@code listen}, {@code upstream},
 * {@code routes}, {@code store}, protection, plans and keys): any text either reads or is rejected
 * with {@link ConfigException}, its documented exception (problems with file, line and field);
 * nothing else escapes. Seeds: the edge files of {@code examples/} ({@code bin/fuzz-seeds}).
 */
@Tag("slow")
public class EdgeConfigFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new EdgeConfigFuzzTest().readsOrRejectsWithConfigException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void readsOrRejectsWithConfigException(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        try {
            ConfigNode root = ConfigNode.parse("fuzz.yaml", null, new StringReader(yaml));
            ConfigProblems problems = new ConfigProblems();
            EdgeConfigReader.read(root, problems, Optional.empty());
            problems.throwIfAny();
        } catch (ConfigException expected) {
            // documented
        }
    }
}
