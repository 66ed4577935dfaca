package dev.sluice.sim.scenario;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The scenarios that ship with Sluice (SPEC §7.2), as YAML resources next to this class:
 * {@code jitter-blip}, {@code retry-amplification}, {@code adaptive-throttle}, {@code littles-law}.
 * Thread-safe.
 */
public final class BuiltInScenarios {

    /** The built-in names, in the order the README presents them. */
    public static final List<String> NAMES = List.of("jitter-blip", "retry-amplification", "adaptive-throttle",
            "littles-law");

    private BuiltInScenarios() {
    }

    /** The YAML text of a built-in scenario, if {@code name} is one. */
    public static Optional<String> yaml(String name) {
        if (!NAMES.contains(name)) {
            return Optional.empty();
        }
        try (InputStream in = BuiltInScenarios.class.getResourceAsStream("/dev/sluice/sim/scenarios/" + name + ".yaml")) {
            if (in == null) {
                throw new IllegalStateException("built-in scenario " + name + " is missing from the jar");
            }
            return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads a built-in scenario.
     *
     * @throws IllegalArgumentException when {@code name} is not one of {@link #NAMES}
     */
    public static Scenario load(String name) {
        String text = yaml(name).orElseThrow(() -> new IllegalArgumentException(
                "no built-in scenario named " + name + "; built-in: " + String.join(", ", NAMES)));
        try (Reader r = new java.io.StringReader(text)) {
            return ScenarioReader.read("built-in:" + name, r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
