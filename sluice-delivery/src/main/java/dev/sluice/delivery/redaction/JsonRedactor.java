package dev.sluice.delivery.redaction;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
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
     *
     * <p>Streams: tokens are copied from a parser to a generator and a selected value is replaced
     * (its children skipped) as it passes, so the cost is one pass and the memory is about the
     * input and the copy: a 20 MB payload needs ~60 MB of heap, where building a tree took ~300 MB.
     * Content after the first JSON value is ignored.
     */
    public Optional<String> redact(String payload) {
        StringWriter copy = new StringWriter((int) Math.min(payload.length() + 64L, Integer.MAX_VALUE - 64));
        try (JsonParser p = JSON.getFactory().createParser(payload);
                JsonGenerator g = JSON.getFactory().createGenerator(copy)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return Optional.empty();
            }
            copyValue(p, g, t, new ArrayList<>());
        } catch (IOException e) { // JacksonException included: not JSON, or cut short
            return Optional.empty();
        }
        return Optional.of(copy.toString());
    }

    /** Copies the value at the parser's current token, redacting the selected ones; {@code at} is its location. */
    private void copyValue(JsonParser p, JsonGenerator g, JsonToken t, List<Object> at) throws IOException {
        if (selected(at)) {
            g.writeString(REDACTED);
            p.skipChildren(); // still parsed, so malformed content inside fails the whole copy
            return;
        }
        switch (t) {
            case START_OBJECT -> {
                g.writeStartObject();
                while ((t = next(p)) != JsonToken.END_OBJECT) {
                    String name = p.currentName();
                    g.writeFieldName(name);
                    at.add(name);
                    copyValue(p, g, next(p), at);
                    at.remove(at.size() - 1);
                }
                g.writeEndObject();
            }
            case START_ARRAY -> {
                g.writeStartArray();
                int i = 0;
                while ((t = next(p)) != JsonToken.END_ARRAY) {
                    at.add(i++);
                    copyValue(p, g, t, at);
                    at.remove(at.size() - 1);
                }
                g.writeEndArray();
            }
            default -> g.copyCurrentEvent(p);
        }
    }

    private static JsonToken next(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw new JsonParseException(p, "unexpected end of input");
        }
        return t;
    }

    /** Whether a path selects location {@code at} (member names and array indexes from the root). */
    private boolean selected(List<Object> at) {
        for (List<Step> path : paths) {
            if (path.size() != at.size()) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < path.size() && all; i++) {
                Object here = at.get(i);
                all = switch (path.get(i)) {
                    case Field f -> here instanceof String name && name.equals(f.name());
                    case AnyMember m -> here instanceof String;
                    case Index x -> here instanceof Integer k && k == x.index();
                    case AnyElement e -> here instanceof Integer;
                };
            }
            if (all) {
                return true;
            }
        }
        return false;
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
