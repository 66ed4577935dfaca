package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A mapping of a scenario file read field by field: each getter returns the value written, or the
 * default when the field is absent, and records a located problem (file, line, field) when the value
 * is malformed. A missing section reads as all defaults. Not thread-safe.
 */
final class Section {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

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
            problems.add(n, "must be a duration like 5s or 250ms, was " + n.describe());
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
        if (isNone(n)) {
            return null;
        }
        if (n.kind() == ConfigNode.Kind.SCALAR && n.scalarType() == ConfigNode.ScalarType.INTEGER
                && "0".equals(n.text().strip())) {
            return Duration.ZERO;
        }
        if (n.kind() == ConfigNode.Kind.SCALAR && n.scalarType() == ConfigNode.ScalarType.STRING) {
            Matcher m = DURATION.matcher(n.text().strip().toLowerCase(Locale.ROOT));
            if (m.matches()) {
                BigDecimal amount = new BigDecimal(m.group(1));
                BigDecimal nanosPerUnit = switch (m.group(2)) {
                    case "ms" -> BigDecimal.valueOf(1_000_000L);
                    case "s" -> BigDecimal.valueOf(1_000_000_000L);
                    case "m" -> BigDecimal.valueOf(60_000_000_000L);
                    default -> BigDecimal.valueOf(3_600_000_000_000L);
                };
                BigDecimal nanos = amount.multiply(nanosPerUnit);
                if (nanos.compareTo(BigDecimal.valueOf(366L * 86_400 * 1_000_000_000L)) > 0) {
                    problems.add(n, "must be at most 366 days, was " + n.describe());
                    return null;
                }
                return Duration.ofNanos(nanos.longValue());
            }
        }
        problems.add(n, "must be a duration like 5s, 250ms, 2m or 1h, was " + n.describe());
        return null;
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
        if (n == null) {
            return dflt;
        }
        Optional<Double> v = number(n);
        if (v.isEmpty()) {
            return dflt;
        }
        double d = v.get();
        if (d < min || d > max) {
            problems.add(n, "must be in " + plain(min) + ".." + plain(max) + ", was " + n.text());
            return dflt;
        }
        return d;
    }

    private Optional<Double> number(ConfigNode n) {
        if (n.kind() == ConfigNode.Kind.SCALAR && n.scalarType() == ConfigNode.ScalarType.INTEGER) {
            var v = n.asLong(problems);
            return v.isPresent() ? Optional.of((double) v.getAsLong()) : Optional.empty();
        }
        if (n.kind() == ConfigNode.Kind.SCALAR && n.scalarType() == ConfigNode.ScalarType.DECIMAL) {
            try {
                double d = Double.parseDouble(n.text().replace("_", ""));
                if (Double.isFinite(d)) {
                    return Optional.of(d);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        problems.add(n, "must be a number, was " + n.describe());
        return Optional.empty();
    }

    static Optional<Double> number(ConfigNode n, ConfigProblems problems) {
        return new Section(null, problems).number(n);
    }

    boolean bool(String name, boolean dflt) {
        ConfigNode n = node(name);
        if (n == null) {
            return dflt;
        }
        if (n.kind() == ConfigNode.Kind.SCALAR && n.scalarType() == ConfigNode.ScalarType.BOOLEAN) {
            return Boolean.parseBoolean(n.text().strip().toLowerCase(Locale.ROOT));
        }
        problems.add(n, "must be true or false, was " + n.describe());
        return dflt;
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
        if (n == null) {
            return dflt;
        }
        if (n.kind() == ConfigNode.Kind.SCALAR) {
            E e = options.get(n.text().strip().toLowerCase(Locale.ROOT));
            if (e != null) {
                return e;
            }
        }
        problems.add(n, "must be one of " + String.join(", ", new TreeSet<>(options.keySet())) + ", was "
                + n.describe());
        return dflt;
    }

    private static String plain(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
