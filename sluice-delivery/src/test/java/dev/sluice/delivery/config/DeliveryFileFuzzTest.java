package dev.sluice.delivery.config;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the delivery worker's configuration reader: any text either reads or is rejected with
 * {@link ConfigException}, its documented exception; nothing else escapes. {@code env:NAME} secrets
 * resolve to a fixed value so that reading never touches the environment. Seeds: the delivery
 * module's example file ({@code bin/fuzz-seeds}).
 */
@Tag("slow")
public class DeliveryFileFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new DeliveryFileFuzzTest().readsOrRejectsWithConfigException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void readsOrRejectsWithConfigException(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        try {
            ConfigNode root = ConfigNode.parse("fuzz.yaml", null, new StringReader(yaml));
            DeliveryFile.read(Path.of("fuzz.yaml"), root, name -> "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        } catch (ConfigException expected) {
            // documented
        }
    }
}
