package dev.sluice.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A node of a YAML configuration document that remembers where it came from: file, line and its
 * path from the root ({@code plans.free.policies[0].q}). Every section reader (the limiter's, the
 * edge's) reads through these and reports problems against them, so every error names the file,
 * line and field. Immutable and thread-safe.
 *
 * <p>Kinds: mapping (ordered; a duplicate key is reported, the first one kept), sequence, scalar
 * (with whether YAML typed it as a string, integer, decimal or boolean) and null. Only the first
 * document of a stream is read.
 */
public final class ConfigNode {

    private static final java.util.regex.Pattern BYTES =
            java.util.regex.Pattern.compile("(\\d{1,12})\\s*([kKmMgG]i?[bB]|[bB])");

    /** What a node holds. */
    public enum Kind { MAPPING, SEQUENCE, SCALAR, NULL }

    /** How YAML typed a scalar (a quoted {@code "20"} is a string, a plain {@code 20} an integer). */
    public enum ScalarType { STRING, INTEGER, DECIMAL, BOOLEAN }

    private final Kind kind;
    private final String source;
    private final Path sourcePath;
    private final int line;
    private final String path;
    private final Map<String, ConfigNode> fields;
    private final List<ConfigNode> elements;
    private final String text;
    private final ScalarType scalarType;
    private final Number integer;

    private ConfigNode(Kind kind, String source, Path sourcePath, int line, String path,
            Map<String, ConfigNode> fields, List<ConfigNode> elements, String text, ScalarType scalarType) {
        this(kind, source, sourcePath, line, path, fields, elements, text, scalarType, null);
    }

    private ConfigNode(Kind kind, String source, Path sourcePath, int line, String path,
            Map<String, ConfigNode> fields, List<ConfigNode> elements, String text, ScalarType scalarType,
            Number integer) {
        this.kind = kind;
        this.source = source;
        this.sourcePath = sourcePath;
        this.line = line;
        this.path = path;
        this.fields = fields;
        this.elements = elements;
        this.text = text;
        this.scalarType = scalarType;
        this.integer = integer;
    }

    /**
     * Parses {@code file}. Problems are named after {@code file} as given.
     *
     * @throws ConfigException when the file cannot be read or is not well-formed YAML (with the line)
     */
    public static ConfigNode parse(Path file) {
        String name = file.toString();
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException(new ConfigProblem(name, 0, "", "no such file"));
        } catch (IOException e) {
            throw new ConfigException(new ConfigProblem(name, 0, "", "cannot read: " + e));
        }
        return parse(name, file, new StringReader(content));
    }

    /**
     * Parses YAML text; {@code source} names it in problems. A relative path in it (such as
     * {@code key-file}) resolves against {@code sourcePath}'s folder, or the working folder when
     * {@code sourcePath} is {@code null}.
     *
     * @throws ConfigException when the text is not well-formed YAML (with the line)
     */
    public static ConfigNode parse(String source, Path sourcePath, Reader yaml) {
        String text;
        try {
            java.io.StringWriter all = new java.io.StringWriter();
            yaml.transferTo(all);
            text = all.toString();
        } catch (IOException e) {
            throw new ConfigException(new ConfigProblem(source, 0, "", "cannot read: " + e));
        }
        YAMLFactory factory = YAMLFactory.builder().build();
        try (JsonParser parser = factory.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new ConfigNode(Kind.NULL, source, sourcePath, 1, "", Map.of(), List.of(), null, null);
            }
            ConfigProblems duplicates = new ConfigProblems();
            ConfigNode root = read(parser, source, sourcePath, "", 0, duplicates);
            duplicates.throwIfAny();
            return root;
        } catch (JacksonException e) {
            throw new ConfigException(syntaxProblem(source, e, Math.max(1, (int) text.lines().count())));
        } catch (IOException e) {
            throw new ConfigException(new ConfigProblem(source, 0, "", "cannot read: " + e));
        }
    }

    /**
     * The YAML parser's own reason and line: Jackson's location is where its token stream stood
     * (often the line before), SnakeYAML's problem mark is where the fault is. A fault found at the end
     * of the stream is put on the last line, not on the empty one after the final newline.
     */
    private static ConfigProblem syntaxProblem(String source, JacksonException e, int lastLine) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException marked && marked.getProblem() != null) {
                int line = marked.getProblemMark() == null ? 0
                        : Math.min(lastLine, marked.getProblemMark().getLine() + 1);
                String context = marked.getContext() == null ? ""
                        : " (" + marked.getContext() + (marked.getContextMark() == null ? ""
                                : " at line " + Math.min(lastLine, marked.getContextMark().getLine() + 1)) + ")";
                return new ConfigProblem(source, line, "", "not valid YAML: " + marked.getProblem().strip() + context);
            }
        }
        JsonLocation at = e.getLocation();
        int line = at == null ? 0 : Math.max(0, at.getLineNr());
        String message = e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage();
        return new ConfigProblem(source, line, "", "not valid YAML: " + message.lines().findFirst().orElse(message));
    }

    /**
     * Reads the value at the parser's current token. {@code keyLine} is the line of the key that names
     * it (0 for a sequence element or the root): a block mapping's first token is on the line after its
     * key, and a problem about {@code polices:} belongs on the line that says {@code polices:}.
     */
    private static ConfigNode read(JsonParser p, String source, Path sourcePath, String path, int keyLine,
            ConfigProblems problems) throws IOException {
        JsonToken token = p.currentToken();
        int line = keyLine > 0 ? keyLine : p.currentTokenLocation().getLineNr();
        switch (token) {
            case START_OBJECT -> {
                Map<String, ConfigNode> fields = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    int nameLine = p.currentTokenLocation().getLineNr();
                    p.nextToken();
                    ConfigNode value = read(p, source, sourcePath, join(path, name), nameLine, problems);
                    if (fields.containsKey(name)) {
                        problems.add(new ConfigProblem(source, nameLine, join(path, name),
                                "duplicate key (first at line " + fields.get(name).line + ")"));
                    } else {
                        fields.put(name, value);
                    }
                }
                return new ConfigNode(Kind.MAPPING, source, sourcePath, line, path,
                        Collections.unmodifiableMap(fields), List.of(), null, null);
            }
            case START_ARRAY -> {
                List<ConfigNode> elements = new java.util.ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    elements.add(read(p, source, sourcePath, path + "[" + elements.size() + "]", 0, problems));
                }
                return new ConfigNode(Kind.SEQUENCE, source, sourcePath, line, path, Map.of(),
                        List.copyOf(elements), null, null);
            }
            case VALUE_NULL -> {
                return new ConfigNode(Kind.NULL, source, sourcePath, line, path, Map.of(), List.of(), null, null);
            }
            default -> {
                ScalarType type = switch (token) {
                    case VALUE_NUMBER_INT -> ScalarType.INTEGER;
                    case VALUE_NUMBER_FLOAT -> ScalarType.DECIMAL;
                    case VALUE_TRUE, VALUE_FALSE -> ScalarType.BOOLEAN;
                    default -> ScalarType.STRING;
                };
                // YAML integers may be written 10_000, 0x10, +7: let the parser read the value
                Number integer = type == ScalarType.INTEGER ? p.getNumberValue() : null;
                return new ConfigNode(Kind.SCALAR, source, sourcePath, line, path, Map.of(), List.of(),
                        p.getText(), type, integer);
            }
        }
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    public Kind kind() {
        return kind;
    }

    /** The file (as the user named it) this node came from. */
    public String source() {
        return source;
    }

    /** 1-based line of this node: for a mapping entry's value, the line of its key. */
    public int line() {
        return line;
    }

    /** The path from the root, e.g. {@code plans.free.policies[0].q}; empty for the root. */
    public String path() {
        return path;
    }

    /** Resolves {@code relative} against the folder of this node's file. */
    public Path resolve(String relative) {
        Path folder = sourcePath == null ? null : sourcePath.toAbsolutePath().getParent();
        return folder == null ? Path.of(relative) : folder.resolve(relative);
    }

    public boolean isMapping() {
        return kind == Kind.MAPPING;
    }

    public boolean isNull() {
        return kind == Kind.NULL;
    }

    /** A mapping's entries in document order; empty for other kinds. */
    public Map<String, ConfigNode> fields() {
        return fields;
    }

    /** A sequence's elements; empty for other kinds. */
    public List<ConfigNode> elements() {
        return elements;
    }

    /** The field {@code name} of a mapping, if present. */
    public Optional<ConfigNode> get(String name) {
        return Optional.ofNullable(fields.get(name));
    }

    /** A scalar's text as written; {@code null} for other kinds. */
    public String text() {
        return text;
    }

    /** A scalar's YAML type; {@code null} for other kinds. */
    public ScalarType scalarType() {
        return scalarType;
    }

    /** Reports a problem unless this node is a mapping; returns whether it is. */
    public boolean expectMapping(ConfigProblems problems, String what) {
        if (kind != Kind.MAPPING) {
            problems.add(this, "must be a mapping (" + what + "), was " + describe());
            return false;
        }
        return true;
    }

    /** Reports a problem unless this node is a sequence; returns whether it is. */
    public boolean expectSequence(ConfigProblems problems, String what) {
        if (kind != Kind.SEQUENCE) {
            problems.add(this, "must be a list (" + what + "), was " + describe());
            return false;
        }
        return true;
    }

    /**
     * Reports every field of this mapping not in {@code known}, with the nearest known name when it
     * is a likely typo: {@code polices: unknown field; did you mean "policies"? (expected one of ...)}.
     */
    public void rejectUnknownFields(ConfigProblems problems, Set<String> known) {
        for (Map.Entry<String, ConfigNode> e : fields.entrySet()) {
            if (!known.contains(e.getKey())) {
                problems.add(e.getValue(), "unknown field" + Names.didYouMean(e.getKey(), known)
                        + " (expected one of " + String.join(", ", known) + ")");
            }
        }
    }

    /**
     * Warns about every field of this mapping not in {@code known} (with the nearest known name when
     * it is a likely typo), for a reader that reads only part of a file another program reads whole:
     * {@code sluice replay} reads {@code plans} and {@code keys} of an edge configuration.
     */
    public void warnUnknownFields(ConfigProblems problems, Set<String> known) {
        for (Map.Entry<String, ConfigNode> e : fields.entrySet()) {
            if (!known.contains(e.getKey())) {
                problems.warn(e.getValue(), "unknown section" + Names.didYouMean(e.getKey(), known) + ", ignored");
            }
        }
    }

    /**
     * For a document whose other sections belong to other readers: reports each top-level name that
     * is not one of {@code own} but is one or two edits from one of them that is absent
     * ({@code kyes} for {@code keys}): a typo that would otherwise silently leave that section unread.
     */
    public void rejectMisspelledSections(ConfigProblems problems, Set<String> own) {
        for (Map.Entry<String, ConfigNode> section : fields.entrySet()) {
            String name = section.getKey();
            if (own.contains(name)) {
                continue;
            }
            for (String candidate : own) {
                if (Names.editDistance(name, candidate) <= 2 && !fields.containsKey(candidate)) {
                    problems.add(section.getValue(), "unknown section \"" + name + "\"; did you mean \"" + candidate
                            + "\"?");
                    break;
                }
            }
        }
    }

    /**
     * A copy of this tree where every mapping key written in snake_case ({@code max_attempts}) is
     * renamed to its kebab-case form ({@code max-attempts}), with a warning for each: the deprecated
     * spelling of a format that moved to kebab-case. A key written both ways is a duplicate.
     */
    public ConfigNode kebabCaseKeys(ConfigProblems problems) {
        return switch (kind) {
            case MAPPING -> {
                Map<String, ConfigNode> renamed = new LinkedHashMap<>();
                String parent = path.isEmpty() ? "" : path;
                for (Map.Entry<String, ConfigNode> e : fields.entrySet()) {
                    String name = e.getKey();
                    String kebab = name.indexOf('_') > 0 && name.matches("[a-z0-9_]+") ? name.replace('_', '-') : name;
                    ConfigNode moved = e.getValue().relocated(join(parent, kebab));
                    if (!kebab.equals(name)) {
                        problems.warn(moved, "\"" + name + "\" is the deprecated spelling; write \"" + kebab + "\"");
                    }
                    ConfigNode value = moved.kebabCaseKeys(problems);
                    ConfigNode first = renamed.putIfAbsent(kebab, value);
                    if (first != null) {
                        problems.add(value, "duplicate key (first at line " + first.line + ")");
                    }
                }
                yield new ConfigNode(kind, source, sourcePath, line, path, Collections.unmodifiableMap(renamed),
                        List.of(), null, null);
            }
            case SEQUENCE -> {
                List<ConfigNode> copied = new java.util.ArrayList<>();
                for (ConfigNode element : elements) {
                    copied.add(element.relocated(path + "[" + copied.size() + "]").kebabCaseKeys(problems));
                }
                yield new ConfigNode(kind, source, sourcePath, line, path, Map.of(), List.copyOf(copied), null, null);
            }
            default -> this;
        };
    }

    private ConfigNode relocated(String newPath) {
        return newPath.equals(path) ? this
                : new ConfigNode(kind, source, sourcePath, line, newPath, fields, elements, text, scalarType, integer);
    }

    /** The scalar text of this node, or a problem ({@code must be a string}) and empty. */
    public Optional<String> asText(ConfigProblems problems) {
        if (kind != Kind.SCALAR || text.isBlank()) {
            problems.add(this, "must be a non-empty string, was " + describe());
            return Optional.empty();
        }
        return Optional.of(text);
    }

    /** The integer value of this node, or a problem ({@code must be an integer}) and empty. */
    public OptionalLong asLong(ConfigProblems problems) {
        if (kind == Kind.SCALAR && scalarType == ScalarType.INTEGER && integer != null) {
            if (integer instanceof java.math.BigInteger big && big.bitLength() > 63) {
                problems.add(this, "must be an integer that fits in 64 bits, was " + text);
                return OptionalLong.empty();
            }
            return OptionalLong.of(integer.longValue());
        }
        problems.add(this, "must be an integer, was " + describe());
        return OptionalLong.empty();
    }

    /** The integer value of this node if it is within {@code [min, max]}, else a problem and empty. */
    public OptionalLong asLong(ConfigProblems problems, long min, long max) {
        OptionalLong v = asLong(problems);
        if (v.isPresent() && (v.getAsLong() < min || v.getAsLong() > max)) {
            problems.add(this, (min == 1 && max == Long.MAX_VALUE ? "must be > 0" : "must be in " + min + ".." + max)
                    + ", was " + v.getAsLong());
            return OptionalLong.empty();
        }
        return v;
    }

    /**
     * The integer value of this node if it is within {@code [min, max]}, else a problem naming what is
     * expected and empty: {@code must be whole seconds like 60, was "2s"}, {@code must be in 1..100 (a whole
     * percentage like 20), was 120}.
     *
     * @param expected what the value is, with its unit and an example ({@code "whole seconds like 60"})
     */
    public OptionalLong asLong(ConfigProblems problems, long min, long max, String expected) {
        if (!(kind == Kind.SCALAR && scalarType == ScalarType.INTEGER && integer != null)) {
            problems.add(this, "must be " + expected + ", was " + describe());
            return OptionalLong.empty();
        }
        if (integer instanceof java.math.BigInteger big && big.bitLength() > 63) {
            problems.add(this, "must be " + expected + " that fits in 64 bits, was " + text);
            return OptionalLong.empty();
        }
        long v = integer.longValue();
        if (v < min || v > max) {
            problems.add(this, (max == Long.MAX_VALUE ? "must be >= " + min : "must be in " + min + ".." + max)
                    + " (" + expected + "), was " + v);
            return OptionalLong.empty();
        }
        return OptionalLong.of(v);
    }

    /**
     * A YAML boolean ({@code true} / {@code false}; the parser also types YAML 1.1's {@code yes},
     * {@code no}, {@code on}, {@code off} as booleans, and they read as written), or a problem and empty.
     */
    public Optional<Boolean> asBoolean(ConfigProblems problems) {
        if (kind == Kind.SCALAR && scalarType == ScalarType.BOOLEAN) {
            String value = text.strip().toLowerCase(Locale.ROOT);
            return Optional.of(value.equals("true") || value.equals("yes") || value.equals("on") || value.equals("y"));
        }
        problems.add(this, "must be true or false, was " + describe());
        return Optional.empty();
    }

    /** A switch: {@code true} / {@code on} or {@code false} / {@code off}; else a problem and empty. */
    public Optional<Boolean> asOnOff(ConfigProblems problems) {
        String value = kind == Kind.SCALAR ? text.strip().toLowerCase(Locale.ROOT) : "";
        return switch (value) {
            case "true", "on" -> Optional.of(true);
            case "false", "off" -> Optional.of(false);
            default -> {
                problems.add(this, "must be true, false, on or off, was " + describe());
                yield Optional.empty();
            }
        };
    }

    /**
     * A number (a YAML integer or decimal, finite) within {@code [min, max]}; else a problem and empty.
     */
    public Optional<Double> asDouble(ConfigProblems problems, double min, double max) {
        Double value = null;
        if (kind == Kind.SCALAR && scalarType == ScalarType.INTEGER && integer != null) {
            value = integer.doubleValue();
        } else if (kind == Kind.SCALAR && scalarType == ScalarType.DECIMAL) {
            try {
                double d = Double.parseDouble(text.replace("_", ""));
                value = Double.isFinite(d) ? d : null;
            } catch (NumberFormatException e) {
                value = null; // reported below
            }
        }
        if (value == null) {
            problems.add(this, "must be a number, was " + describe());
            return Optional.empty();
        }
        if (value < min || value > max) {
            problems.add(this, "must be in " + plain(min) + ".." + plain(max) + ", was " + text);
            return Optional.empty();
        }
        return Optional.of(value);
    }

    /**
     * One of {@code options}, matched case-insensitively on the keys; else a problem naming them all
     * (with the nearest one when it is a likely typo) and empty.
     */
    public <E> Optional<E> asChoice(ConfigProblems problems, Map<String, E> options) {
        if (kind == Kind.SCALAR) {
            E value = options.get(text.strip().toLowerCase(Locale.ROOT));
            if (value != null) {
                return Optional.of(value);
            }
        }
        Set<String> names = new java.util.TreeSet<>(options.keySet());
        String hint = kind == Kind.SCALAR ? Names.didYouMean(text.strip().toLowerCase(Locale.ROOT), names) : "";
        problems.add(this, "must be one of " + String.join(", ", names) + ", was " + describe() + hint);
        return Optional.empty();
    }

    /**
     * A constant of {@code type} written as its name in any case, with {@code -} or {@code _} between
     * words ({@code sheddable-plus} for {@code SHEDDABLE_PLUS}); else a problem and empty.
     */
    public <E extends Enum<E>> Optional<E> asEnum(ConfigProblems problems, Class<E> type) {
        Map<String, E> options = new LinkedHashMap<>();
        for (E constant : type.getEnumConstants()) {
            options.put(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'), constant);
        }
        if (kind == Kind.SCALAR) {
            E value = options.get(text.strip().toLowerCase(Locale.ROOT).replace('_', '-'));
            if (value != null) {
                return Optional.of(value);
            }
        }
        return asChoice(problems, options);
    }

    /**
     * A duration in the one grammar of {@link Durations#parse}: {@code 250ms}, {@code 1.5s},
     * {@code 5m}, {@code 2h}, {@code 3d}, ISO-8601 {@code PT3S}; a plain {@code 0} is zero. A problem
     * (with a hint for a bare number) and empty otherwise.
     */
    public Optional<Duration> asDuration(ConfigProblems problems) {
        if (kind == Kind.SCALAR && scalarType == ScalarType.INTEGER && "0".equals(text.strip())) {
            return Optional.of(Duration.ZERO);
        }
        if (kind == Kind.SCALAR && scalarType != ScalarType.BOOLEAN) {
            try {
                return Optional.of(Durations.parse(text));
            } catch (IllegalArgumentException e) {
                problems.add(this, "must be " + Durations.EXPECTED + ", was " + describe() + Durations.hint(text));
                return Optional.empty();
            }
        }
        problems.add(this, "must be " + Durations.EXPECTED + ", was " + describe());
        return Optional.empty();
    }

    /** A duration (see {@link #asDuration(ConfigProblems)}) within {@code [min, max]}; else a problem and empty. */
    public Optional<Duration> asDuration(ConfigProblems problems, Duration min, Duration max) {
        Optional<Duration> d = asDuration(problems);
        if (d.isPresent() && d.get().compareTo(min) < 0) {
            problems.add(this, (min.equals(Duration.ofNanos(1)) ? "must be > 0" : "must be at least " + Durations.format(min))
                    + ", was " + text.strip());
            return Optional.empty();
        }
        if (d.isPresent() && d.get().compareTo(max) > 0) {
            problems.add(this, "must be at most " + Durations.format(max) + ", was " + text.strip());
            return Optional.empty();
        }
        return d;
    }

    /**
     * A size in bytes within {@code [min, max]}: a plain integer ({@code 16384}) or one with a unit
     * ({@code 512B}, {@code 16KiB}, {@code 1MiB}, {@code 1GiB}; {@code KB}, {@code MB}, {@code GB} are
     * powers of 1000); else a problem ("a number of bytes like 16384") and empty.
     */
    public OptionalLong asBytes(ConfigProblems problems, long min, long max) {
        String expected = "a number of bytes like " + Math.max(min, Math.min(max, 16_384)) + " or 16KiB";
        if (kind == Kind.SCALAR && scalarType == ScalarType.STRING) {
            java.util.regex.Matcher m = BYTES.matcher(text.strip());
            if (m.matches()) {
                long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "b" -> 1L;
                    case "kb" -> 1_000L;
                    case "kib" -> 1L << 10;
                    case "mb" -> 1_000_000L;
                    case "mib" -> 1L << 20;
                    case "gb" -> 1_000_000_000L;
                    default -> 1L << 30;
                };
                long n = Long.parseLong(m.group(1));
                if (n > max / unit) { // also keeps n * unit from overflowing
                    problems.add(this, "must be in " + min + ".." + max + " (" + expected + "), was " + text.strip());
                    return OptionalLong.empty();
                }
                return inRange(problems, n * unit, min, max, expected);
            }
            problems.add(this, "must be " + expected + ", was " + describe());
            return OptionalLong.empty();
        }
        return asLong(problems, min, max, expected);
    }

    private OptionalLong inRange(ConfigProblems problems, long v, long min, long max, String expected) {
        if (v < min || v > max) {
            problems.add(this, "must be in " + min + ".." + max + " (" + expected + "), was " + text.strip());
            return OptionalLong.empty();
        }
        return OptionalLong.of(v);
    }

    /**
     * A whole percentage within {@code [min, max]}, written {@code 20} or {@code 20%}; else a problem
     * and empty.
     */
    public OptionalLong asPercent(ConfigProblems problems, long min, long max) {
        String expected = "a whole percentage like " + Math.max(min, Math.min(max, 20));
        if (kind == Kind.SCALAR && scalarType == ScalarType.STRING && text.strip().matches("\\d{1,3}\\s*%")) {
            long v = Long.parseLong(text.strip().replace("%", "").strip());
            if (v < min || v > max) {
                problems.add(this, "must be in " + min + ".." + max + " (" + expected + "), was " + text.strip());
                return OptionalLong.empty();
            }
            return OptionalLong.of(v);
        }
        return asLong(problems, min, max, expected);
    }

    /**
     * A listening or connecting address: a port ({@code 8080}, with {@code defaultHost}) or
     * {@code host:port} ({@code 127.0.0.1:8080}, {@code [::1]:8080}), port 0..65535; else a problem
     * and empty.
     */
    public Optional<HostPort> asHostPort(ConfigProblems problems, String defaultHost) {
        if (kind == Kind.SCALAR && scalarType == ScalarType.INTEGER) {
            OptionalLong port = asLong(problems, 0, 65_535);
            return port.isPresent() ? Optional.of(new HostPort(defaultHost, (int) port.getAsLong())) : Optional.empty();
        }
        Optional<String> value = asText(problems);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        Optional<HostPort> parsed = HostPort.parse(value.get());
        if (parsed.isEmpty()) {
            problems.add(this, "must be a port or host:port (port 0..65535), was \"" + value.get() + "\"");
        }
        return parsed;
    }

    private static String plain(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** A short description of the value for messages: {@code 0}, {@code "abc"}, {@code a list}, ... */
    public String describe() {
        return switch (kind) {
            case MAPPING -> "a mapping";
            case SEQUENCE -> "a list";
            case NULL -> "empty";
            case SCALAR -> scalarType == ScalarType.STRING ? "\"" + text + "\"" : text;
        };
    }

    @Override
    public String toString() {
        return source + ":" + line + ": " + (path.isEmpty() ? "(root)" : path) + " = " + describe();
    }
}
