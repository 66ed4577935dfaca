package dev.sluice.wire.sf;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps the structured-field-tests JSON encoding (testdata/structured-field-tests/README.md) to the
 * model. Shape errors in the JSON throw {@link IllegalStateException}, never
 * {@link IllegalArgumentException}, so that they cannot pass for a value the model refused.
 */
final class SfJson {

    /** Decimals stay exact (0.0025 must not become a nearby double before rounding). */
    static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private SfJson() {
    }

    static Path testdata() {
        String dir = System.getProperty("sluice.testdata");
        if (dir != null) {
            return Paths.get(dir);
        }
        // run from an IDE: walk up to the repository root
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("testdata/structured-field-tests"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("set -Dsluice.testdata to the repository's testdata folder");
        }
        return p.resolve("testdata");
    }

    /** The value of {@code expected} as the model type of {@code headerType}. */
    static Object model(String headerType, JsonNode expected) {
        return switch (headerType) {
            case "item" -> item(expected);
            case "list" -> list(expected);
            case "dictionary" -> dictionary(expected);
            default -> throw new IllegalStateException("unknown header_type " + headerType);
        };
    }

    static List<Member> list(JsonNode node) {
        List<Member> members = new ArrayList<>();
        node.forEach(m -> members.add(member(m)));
        return members;
    }

    static Dictionary dictionary(JsonNode node) {
        Dictionary.Builder b = Dictionary.builder();
        node.forEach(pair -> b.put(pair.get(0).textValue(), member(pair.get(1))));
        return b.build();
    }

    static Member member(JsonNode node) {
        if (node.get(0).isArray()) {
            List<Item> items = new ArrayList<>();
            node.get(0).forEach(i -> items.add(item(i)));
            return new InnerList(items, parameters(node.get(1)));
        }
        return item(node);
    }

    static Item item(JsonNode node) {
        if (!node.isArray() || node.size() != 2) {
            throw new IllegalStateException("an item is [bare, params]: " + node);
        }
        return new Item(bare(node.get(0)), parameters(node.get(1)));
    }

    static Parameters parameters(JsonNode node) {
        Parameters.Builder b = Parameters.builder();
        node.forEach(pair -> b.put(pair.get(0).textValue(), bare(pair.get(1))));
        return b.build();
    }

    static BareItem bare(JsonNode node) {
        if (node.isIntegralNumber()) {
            return new SfInteger(node.longValue());
        }
        if (node.isFloatingPointNumber()) {
            return SfDecimal.of(node.decimalValue());
        }
        if (node.isTextual()) {
            return new SfString(node.textValue());
        }
        if (node.isBoolean()) {
            return SfBoolean.of(node.booleanValue());
        }
        if (node.isObject() && node.has("__type")) {
            JsonNode value = node.get("value");
            return switch (node.get("__type").textValue()) {
                case "token" -> new SfToken(value.textValue());
                case "binary" -> new SfByteSequence(base32(value.textValue()));
                case "date" -> new SfDate(value.longValue());
                case "displaystring" -> new SfDisplayString(value.textValue());
                default -> throw new IllegalStateException("unknown __type " + node);
            };
        }
        throw new IllegalStateException("not a bare item: " + node);
    }

    /** RFC 4648 §6 base32, as the suite encodes binary content. */
    static byte[] base32(String text) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int acc = 0;
        int bits = 0;
        for (char c : text.toCharArray()) {
            if (c == '=') {
                break;
            }
            int v = alphabet.indexOf(c);
            if (v < 0) {
                throw new IllegalStateException("not base32: " + text);
            }
            acc = acc << 5 | v;
            bits += 5;
            if (bits >= 8) {
                bits -= 8;
                out.write(acc >>> bits & 0xFF);
            }
        }
        return out.toByteArray();
    }
}
