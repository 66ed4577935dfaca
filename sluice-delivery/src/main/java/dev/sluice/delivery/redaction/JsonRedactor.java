package dev.sluice.delivery.redaction;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Blanks personal data in the dead-letter copy of a payload (SPEC §6.6): every value a configured
 * path selects becomes the string {@code "[redacted]"}; everything else is kept.
 *
 * <p>Paths are a small subset of JSONPath: {@code $} then steps {@code .name}, {@code .*} (every
 * member), {@code [n]} (array index) and {@code [*]} (every element). Examples:
 * {@code $.player.email}, {@code $.items[*].card}, {@code $.data.*.phone}. A path that selects
 * nothing in a payload does nothing.
 *
 * <p>Thread-safe (immutable after construction).
 */
public final class JsonRedactor {

    /** What replaces a redacted value. */
    public static final String REDACTED = "[redacted]";

    private static final ObjectMapper JSON = new ObjectMapper();

    private sealed interface Step {
    }

    private record Field(String name) implements Step {
    }

    private record Index(int index) implements Step {
    }

    private record AnyMember() implements Step {
    }

    private record AnyElement() implements Step {
    }

    private final List<List<Step>> paths;

    private JsonRedactor(List<List<Step>> paths) {
        this.paths = paths;
    }

    /**
     * A redactor for {@code paths}.
     *
     * @throws IllegalArgumentException naming the first malformed path
     */
    public static JsonRedactor of(List<String> paths) {
        List<List<Step>> parsed = new ArrayList<>(paths.size());
        for (String p : paths) {
            parsed.add(parse(p));
        }
        return new JsonRedactor(List.copyOf(parsed));
    }

    /** Whether any path is configured. */
    public boolean isEmpty() {
        return paths.isEmpty();
    }

    /**
     * The redacted copy of {@code payload}, re-serialised compactly; empty when the payload is not
     * JSON (then no copy is kept at all, since unparsed text cannot be redacted safely).
     */
    public Optional<String> redact(String payload) {
        JsonNode root;
        try {
            root = JSON.readTree(payload);
        } catch (JacksonException e) {
            return Optional.empty();
        }
        if (root == null || root.isMissingNode()) {
            return Optional.empty();
        }
        if (paths.isEmpty()) {
            return Optional.of(root.toString());
        }
        for (List<Step> path : paths) {
            if (path.isEmpty()) {
                return Optional.of(TextNode.valueOf(REDACTED).toString());
            }
            apply(root, path, 0);
        }
        return Optional.of(root.toString());
    }

    private static void apply(JsonNode node, List<Step> path, int i) {
        Step step = path.get(i);
        boolean last = i == path.size() - 1;
        switch (step) {
            case Field f -> {
                if (node instanceof ObjectNode o && o.has(f.name())) {
                    if (last) {
                        o.set(f.name(), TextNode.valueOf(REDACTED));
                    } else {
                        apply(o.get(f.name()), path, i + 1);
                    }
                }
            }
            case AnyMember m -> {
                if (node instanceof ObjectNode o) {
                    List<String> names = o.properties().stream().map(Map.Entry::getKey).toList();
                    for (String name : names) {
                        if (last) {
                            o.set(name, TextNode.valueOf(REDACTED));
                        } else {
                            apply(o.get(name), path, i + 1);
                        }
                    }
                }
            }
            case Index x -> {
                if (node instanceof ArrayNode a && x.index() < a.size()) {
                    if (last) {
                        a.set(x.index(), TextNode.valueOf(REDACTED));
                    } else {
                        apply(a.get(x.index()), path, i + 1);
                    }
                }
            }
            case AnyElement e -> {
                if (node instanceof ArrayNode a) {
                    for (int k = 0; k < a.size(); k++) {
                        if (last) {
                            a.set(k, TextNode.valueOf(REDACTED));
                        } else {
                            apply(a.get(k), path, i + 1);
                        }
                    }
                }
            }
        }
    }

    private static List<Step> parse(String path) {
        if (path == null || !path.startsWith("$")) {
            throw new IllegalArgumentException("redaction path must start with '$': '" + path + "'");
        }
        List<Step> steps = new ArrayList<>();
        int i = 1;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '.') {
                int j = i + 1;
                while (j < path.length() && path.charAt(j) != '.' && path.charAt(j) != '[') {
                    j++;
                }
                String name = path.substring(i + 1, j);
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("empty member name at offset " + i + " in '" + path + "'");
                }
                steps.add(name.equals("*") ? new AnyMember() : new Field(name));
                i = j;
            } else if (c == '[') {
                int close = path.indexOf(']', i);
                if (close < 0) {
                    throw new IllegalArgumentException("unclosed '[' at offset " + i + " in '" + path + "'");
                }
                String inner = path.substring(i + 1, close);
                if (inner.equals("*")) {
                    steps.add(new AnyElement());
                } else {
                    try {
                        int index = Integer.parseInt(inner);
                        if (index < 0) {
                            throw new NumberFormatException();
                        }
                        steps.add(new Index(index));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("'[" + inner + "]' is neither [*] nor an index >= 0 in '"
                                + path + "'");
                    }
                }
                i = close + 1;
            } else {
                throw new IllegalArgumentException("expected '.' or '[' at offset " + i + " in '" + path + "'");
            }
        }
        return List.copyOf(steps);
    }
}
