package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.config.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A mapping of a scenario file read field by field: each getter returns the value written, or the
 * default when the field is absent, and records a located problem (file, line, field) when the value
 * is malformed. A missing section reads as all defaults. Not thread-safe.
 */
final class Section {

    private final ConfigNode node;
    private final ConfigProblems problems;

    private Section(ConfigNode node, ConfigProblems problems) {
        this.node = node;
        this.problems = problems;
    }

    /** Reads {@code node} as a mapping with only {@code known} fields; {@code null} reads as empty. */
    static Section of(ConfigNode node, ConfigProblems problems, String what, Set<String> known) {
        if (node == null || node.isNull()) {
            return new Section(null, problems);
        }
        if (!node.expectMapping(problems, what)) {
            return new Section(null, problems);
        }
        node.rejectUnknownFields(problems, new TreeSet<>(known));
        return new Section(node, problems);
    }

    boolean present() {
        return node != null;
    }

    boolean has(String name) {
        return node != null && node.get(name).isPresent();
    }

    ConfigNode node(String name) {
        return node == null ? null : node.get(name).orElse(null);
    }

    ConfigNode self() {
        return node;
    }

    ConfigProblems problems() {
        return problems;
    }

    Section section(String name, String what, Set<String> known) {
        return of(node(name), problems, what, known);
    }

    Duration duration(String name, Duration dflt) {
        ConfigNode n = node(name);
        if (n == null) {
            return dflt;
        }
        if (isNone(n)) {
            problems.add(n, "must be " + Durations.EXPECTED + ", was " + n.describe());
            return dflt;
        }
        Duration d = parseDuration(n);
        return d == null ? dflt : d;
    }

    /** A duration that may be {@code none} (or YAML null) for "absent"; a malformed one reads as {@code dflt}. */
    Duration optionalDuration(String name, Duration dflt) {
        ConfigNode n = node(name);
        if (n == null) {
            return dflt;
        }
        if (isNone(n)) {
            return null;
        }
        Duration d = parseDuration(n);
        return d == null ? dflt : d;
    }

    private static boolean isNone(ConfigNode n) {
        return n.isNull() || (n.kind() == ConfigNode.Kind.SCALAR && "none".equalsIgnoreCase(n.text().strip()));
    }

    private Duration parseDuration(ConfigNode n) {
        return isNone(n) ? null : n.asDuration(problems).orElse(null);
    }

    long integer(String name, long dflt, long min, long max) {
        ConfigNode n = node(name);
        if (n == null) {
            return dflt;
        }
        var v = n.asLong(problems, min, max);
        return v.isPresent() ? v.getAsLong() : dflt;
    }

    double number(String name, double dflt, double min, double max) {
        ConfigNode n = node(name);
        return n == null ? dflt : n.asDouble(problems, min, max).orElse(dflt);
    }

    static Optional<Double> number(ConfigNode n, ConfigProblems problems) {
        return n.asDouble(problems, -Double.MAX_VALUE, Double.MAX_VALUE);
    }

    boolean bool(String name, boolean dflt) {
        ConfigNode n = node(name);
        return n == null ? dflt : n.asBoolean(problems).orElse(dflt);
    }

    String text(String name, String dflt) {
        ConfigNode n = node(name);
        if (n == null) {
            return dflt;
        }
        if (n.kind() != ConfigNode.Kind.SCALAR) {
            problems.add(n, "must be text, was " + n.describe());
            return dflt;
        }
        return n.text().strip();
    }

    <E> E choice(String name, E dflt, Map<String, E> options) {
        ConfigNode n = node(name);
        return n == null ? dflt : n.asChoice(problems, options).orElse(dflt);
    }
}
