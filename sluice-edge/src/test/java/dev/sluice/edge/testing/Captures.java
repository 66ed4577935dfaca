package dev.sluice.edge.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The example responses shipped in {@code examples/responses/*.http} (the documented wire form of the
 * Shiplane API): status, headers and body, for tests that check the edge writes exactly that.
 */
public final class Captures {

    /** One parsed capture. */
    public record Capture(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            for (Map.Entry<String, String> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue();
                }
            }
            return null;
        }
    }

    private Captures() {
    }

    /** The repository root (the parent of the {@code sluice.testdata} folder). */
    public static Path repoRoot() {
        String testdata = System.getProperty("sluice.testdata");
        if (testdata == null) {
            throw new IllegalStateException("system property sluice.testdata is not set (surefire sets it)");
        }
        return Path.of(testdata).getParent();
    }

    /** Reads {@code examples/responses/<name>}. */
    public static Capture read(String name) {
        Path file = repoRoot().resolve("examples/responses").resolve(name);
        try {
            List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
            int status = Integer.parseInt(lines.get(0).split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            int i = 1;
            for (; i < lines.size() && !lines.get(i).isBlank(); i++) {
                String l = lines.get(i);
                int colon = l.indexOf(':');
                headers.put(l.substring(0, colon).strip(), l.substring(colon + 1).strip());
            }
            String body = String.join("\n", lines.subList(Math.min(i + 1, lines.size()), lines.size())).strip();
            return new Capture(status, headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
