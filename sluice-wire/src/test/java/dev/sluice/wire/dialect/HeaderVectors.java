package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Loads {@code testdata/header-vectors/*.json} (see that folder's README) for the dialect tests. */
final class HeaderVectors {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One published response and what Sluice should conclude from it. */
    record Vector(String id, String file, ResponseView response, JsonNode expected) {
        String kind() {
            return expected.path("kind").asText();
        }
    }

    private HeaderVectors() {
    }

    static Path folder() {
        String root = System.getProperty("sluice.testdata");
        if (root == null) {
            throw new IllegalStateException("system property sluice.testdata is not set (surefire sets it)");
        }
        return Path.of(root, "header-vectors");
    }

    static List<Vector> load(String file) {
        JsonNode array;
        try {
            array = MAPPER.readTree(Files.readString(folder().resolve(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Vector> vectors = new ArrayList<>();
        for (JsonNode v : array) {
            JsonNode expected = v.get("expected");
            vectors.add(new Vector(v.get("id").asText(), file, response(v, expected), expected));
        }
        return vectors;
    }

    /**
     * The vector as a response. A {@code null} status is a header-only example: 200, unless the
     * expected kind says otherwise (README), then 429 for a limit and 503 for overloaded.
     */
    private static ResponseView response(JsonNode v, JsonNode expected) {
        HttpFields.Builder h = HttpFields.builder();
        v.path("headers").properties().forEach(e -> {
            if (e.getValue().isArray()) {
                e.getValue().forEach(line -> h.add(e.getKey(), line.asText()));
            } else {
                h.add(e.getKey(), e.getValue().asText());
            }
        });
        int status;
        if (v.get("status").isNull()) {
            status = switch (expected.path("kind").asText()) {
                case "rate_limited", "quota_exhausted" -> 429;
                case "overloaded" -> 503;
                default -> 200;
            };
        } else {
            status = v.get("status").asInt();
        }
        JsonNode body = v.get("body");
        return new ResponseView(status, h.build(), body == null || body.isNull() ? null : body.asText());
    }
}
