package dev.sluice.limiter.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
        } catch (IOException e) {
            throw new ConfigException(List.of(new ConfigProblem(name, 0, "", "cannot read: " + e)));
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
        YAMLFactory factory = YAMLFactory.builder().build();
        try (JsonParser parser = factory.createParser(yaml)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new ConfigNode(Kind.NULL, source, sourcePath, 1, "", Map.of(), List.of(), null, null);
            }
            ConfigProblems duplicates = new ConfigProblems();
            ConfigNode root = read(parser, source, sourcePath, "", duplicates);
            duplicates.throwIfAny();
            return root;
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            int line = at == null ? 0 : Math.max(0, at.getLineNr());
            String message = e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage();
            throw new ConfigException(List.of(new ConfigProblem(source, line, "",
                    "not valid YAML: " + message.lines().findFirst().orElse(message))));
        } catch (IOException e) {
            throw new ConfigException(List.of(new ConfigProblem(source, 0, "", "cannot read: " + e)));
        }
    }

    private static ConfigNode read(JsonParser p, String source, Path sourcePath, String path,
            ConfigProblems problems) throws IOException {
        JsonToken token = p.currentToken();
        int line = p.currentTokenLocation().getLineNr();
        switch (token) {
            case START_OBJECT -> {
                Map<String, ConfigNode> fields = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    int keyLine = p.currentTokenLocation().getLineNr();
                    p.nextToken();
                    ConfigNode value = read(p, source, sourcePath, join(path, name), problems);
                    if (fields.containsKey(name)) {
                        problems.add(new ConfigProblem(source, keyLine, join(path, name),
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
                    elements.add(read(p, source, sourcePath, path + "[" + elements.size() + "]", problems));
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

    /** 1-based line of this node (for a mapping entry's value: the line of its value). */
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

    /** Reports every field of this mapping not in {@code known} (catches typos such as {@code qq}). */
    public void rejectUnknownFields(ConfigProblems problems, Set<String> known) {
        for (Map.Entry<String, ConfigNode> e : fields.entrySet()) {
            if (!known.contains(e.getKey())) {
                problems.add(e.getValue(), "unknown field (expected one of " + String.join(", ", known) + ")");
            }
        }
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
