package dev.sluice.delivery.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.StoreLocation;
import dev.sluice.delivery.redaction.JsonRedactor;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The delivery worker's YAML configuration, validated at load with errors that name the file,
 * line, column and field ({@link ConfigException}).
 *
 * <pre>{@code
 * store: sqlite:./sluice-delivery.db      # or jdbc:postgresql://127.0.0.1:5432/app?user=sluice
 * schema: sluice                          # PostgreSQL only (optional)
 * worker:
 *   concurrency: 8
 *   request-timeout: 3s
 *   lease: 30s
 *   poll-interval: 1s
 *   max-retry-after: 24h                  # a longer Retry-After is ignored (backoff applies)
 * max-age:
 *   default: 72h
 *   presence: 5m
 *   purchase.completed: 3d
 * redact:
 *   - $.player.email
 * destinations:
 *   merchant-a:
 *     url: http://127.0.0.1:8081/webhooks
 *     rate: { per-second: 10, burst: 20 }
 *     secret: env:MERCHANT_A_SECRET     # or the whsec_... value itself
 *     idempotent: true
 * }</pre>
 *
 * Every key is optional except each destination's {@code url}, {@code rate} and {@code secret};
 * unknown keys are errors (a typo must not silently fall back to a default).
 *
 * @param file where it was read from
 * @param store the store location ({@code sqlite:PATH} or a {@code jdbc:postgresql:} URL)
 * @param schema the PostgreSQL schema, or {@code null}
 * @param config the worker settings
 * @param destinations the destinations, in file order
 */
public record DeliveryFile(Path file, String store, String schema, DeliveryConfig config,
        List<Destination> destinations) {

    public DeliveryFile {
        destinations = List.copyOf(destinations);
    }

    /** No file: the default store ({@code sqlite:./sluice-delivery.db}), default settings, no destinations. */
    public static DeliveryFile defaults() {
        return new DeliveryFile(Path.of("(defaults)"), StoreLocation.DEFAULT, null, DeliveryConfig.defaults(),
                List.of());
    }

    /**
     * Reads and validates {@code file}, resolving {@code env:NAME} secrets from the environment.
     *
     * @throws ConfigException if the file is missing, not YAML, or a field is invalid
     */
    public static DeliveryFile load(Path file) {
        return load(file, System::getenv);
    }

    /**
     * Reads and validates {@code file}, resolving {@code env:NAME} secrets with {@code env}.
     *
     * @throws ConfigException if the file is missing, not YAML, or a field is invalid
     */
    public static DeliveryFile load(Path file, Function<String, String> env) {
        Node root;
        try (Reader r = Files.newBufferedReader(file); JsonParser p = new YAMLFactory().createParser(r)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                root = new Mapping(new LinkedHashMap<>(), 1, 1);
            } else {
                root = read(p, file);
            }
        } catch (NoSuchFileException e) {
            throw new ConfigException(file, 1, 1, "", "no such file");
        } catch (StreamReadException e) {
            JsonLocation l = e.getLocation();
            throw new ConfigException(file, l == null ? 1 : l.getLineNr(), l == null ? 1 : l.getColumnNr(), "",
                    "not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(file, 1, 1, "", "cannot read: " + e.getMessage());
        }
        return new Loader(file, env).load(root);
    }

    // ---------------------------------------------------------------------------------------------
    // a YAML tree that remembers where each value was

    private sealed interface Node {
        int line();

        int col();
    }

    private record Scalar(String text, int line, int col) implements Node {
    }

    private record Mapping(LinkedHashMap<String, Node> entries, int line, int col) implements Node {
    }

    private record Sequence(List<Node> items, int line, int col) implements Node {
    }

    private static Node read(JsonParser p, Path file) throws IOException {
        JsonLocation at = p.currentTokenLocation();
        int line = at.getLineNr();
        int col = at.getColumnNr();
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                LinkedHashMap<String, Node> entries = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonLocation keyAt = p.currentTokenLocation();
                    p.nextToken();
                    Node value = read(p, file);
                    if (entries.put(name, value) != null) {
                        throw new ConfigException(file, keyAt.getLineNr(), keyAt.getColumnNr(), name,
                                "duplicate key");
                    }
                }
                return new Mapping(entries, line, col);
            }
            case START_ARRAY -> {
                List<Node> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(read(p, file));
                }
                return new Sequence(items, line, col);
            }
            case VALUE_NULL -> {
                return new Scalar(null, line, col);
            }
            default -> {
                return new Scalar(p.getText(), line, col);
            }
        }
    }

    /** Typed reading with field paths for errors. */
    private static final class Loader {
        private final Path file;
        private final Function<String, String> env;

        Loader(Path file, Function<String, String> env) {
            this.file = file;
            this.env = env;
        }

        ConfigException error(Node at, String field, String problem) {
            return new ConfigException(file, at.line(), at.col(), field, problem);
        }

        Mapping mapping(Node n, String field) {
            if (n instanceof Mapping m) {
                return m;
            }
            throw error(n, field, "must be a mapping (key: value lines)");
        }

        String text(Node n, String field) {
            if (n instanceof Scalar s && s.text() != null && !s.text().isBlank()) {
                return s.text();
            }
            throw error(n, field, "must be a non-empty value");
        }

        void onlyKeys(Mapping m, String field, Set<String> allowed) {
            for (Map.Entry<String, Node> e : m.entries().entrySet()) {
                if (!allowed.contains(e.getKey())) {
                    throw error(e.getValue(), join(field, e.getKey()),
                            "unknown key (expected one of " + String.join(", ", allowed) + ")");
                }
            }
        }

        int integer(Node n, String field, int min) {
            String t = text(n, field);
            try {
                int v = Integer.parseInt(t);
                if (v < min) {
                    throw error(n, field, "must be >= " + min + " (got " + v + ")");
                }
                return v;
            } catch (NumberFormatException e) {
                throw error(n, field, "must be a whole number (got '" + t + "')");
            }
        }

        Duration duration(Node n, String field) {
            try {
                Duration d = Durations.parse(text(n, field));
                if (d.isZero() || d.isNegative()) {
                    throw error(n, field, "must be > 0");
                }
                return d;
            } catch (IllegalArgumentException e) {
                throw error(n, field, e.getMessage());
            }
        }

        boolean bool(Node n, String field) {
            String t = text(n, field);
            return switch (t) {
                case "true" -> true;
                case "false" -> false;
                default -> throw error(n, field, "must be true or false (got '" + t + "')");
            };
        }

        static String join(String parent, String key) {
            return parent.isEmpty() ? key : parent + "." + key;
        }

        DeliveryFile load(Node rootNode) {
            Mapping root = mapping(rootNode, "");
            onlyKeys(root, "", Set.of("store", "schema", "worker", "max-age", "redact", "destinations"));
            Map<String, Node> r = root.entries();

            String store = StoreLocation.DEFAULT;
            if (r.containsKey("store")) {
                store = text(r.get("store"), "store");
                try {
                    StoreLocation.parse(store);
                } catch (IllegalArgumentException e) {
                    throw error(r.get("store"), "store", e.getMessage());
                }
            }
            String schema = r.containsKey("schema") ? text(r.get("schema"), "schema") : null;
            if (schema != null && !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
                throw error(r.get("schema"), "schema", "must match [a-z_][a-z0-9_]{0,62}");
            }

            DeliveryConfig.Builder b = DeliveryConfig.builder();
            if (r.containsKey("worker")) {
                Mapping w = mapping(r.get("worker"), "worker");
                onlyKeys(w, "worker", Set.of("concurrency", "request-timeout", "lease", "poll-interval",
                        "max-retry-after"));
                Map<String, Node> we = w.entries();
                if (we.containsKey("concurrency")) {
                    b.concurrency(integer(we.get("concurrency"), "worker.concurrency", 1));
                }
                if (we.containsKey("request-timeout")) {
                    b.requestTimeout(duration(we.get("request-timeout"), "worker.request-timeout"));
                }
                if (we.containsKey("lease")) {
                    b.lease(duration(we.get("lease"), "worker.lease"));
                }
                if (we.containsKey("poll-interval")) {
                    b.pollInterval(duration(we.get("poll-interval"), "worker.poll-interval"));
                }
                if (we.containsKey("max-retry-after")) {
                    b.maxRetryAfter(duration(we.get("max-retry-after"), "worker.max-retry-after"));
                }
            }
            if (r.containsKey("max-age")) {
                Mapping m = mapping(r.get("max-age"), "max-age");
                for (Map.Entry<String, Node> e : m.entries().entrySet()) {
                    Duration d = duration(e.getValue(), "max-age." + e.getKey());
                    if (e.getKey().equals("default")) {
                        b.defaultMaxAge(d);
                    } else {
                        b.maxAge(e.getKey(), d);
                    }
                }
            }
            if (r.containsKey("redact")) {
                if (!(r.get("redact") instanceof Sequence s)) {
                    throw error(r.get("redact"), "redact", "must be a list of JSON paths");
                }
                List<String> paths = new ArrayList<>();
                for (int i = 0; i < s.items().size(); i++) {
                    Node item = s.items().get(i);
                    String path = text(item, "redact[" + i + "]");
                    try {
                        JsonRedactor.of(List.of(path));
                    } catch (IllegalArgumentException e) {
                        throw error(item, "redact[" + i + "]", e.getMessage());
                    }
                    paths.add(path);
                }
                b.redactPaths(paths);
            }
            DeliveryConfig config;
            try {
                config = b.build();
            } catch (IllegalArgumentException e) {
                Node at = r.getOrDefault("worker", root);
                throw error(at, "worker", e.getMessage());
            }

            List<Destination> destinations = new ArrayList<>();
            if (r.containsKey("destinations")) {
                Mapping ds = mapping(r.get("destinations"), "destinations");
                for (Map.Entry<String, Node> e : ds.entries().entrySet()) {
                    destinations.add(destination(e.getKey(), e.getValue()));
                }
            }
            return new DeliveryFile(file, store, schema, config, destinations);
        }

        Destination destination(String name, Node node) {
            String f = "destinations." + name;
            Mapping m = mapping(node, f);
            onlyKeys(m, f, Set.of("url", "rate", "secret", "idempotent"));
            Map<String, Node> e = m.entries();
            for (String required : List.of("url", "rate", "secret")) {
                if (!e.containsKey(required)) {
                    throw error(m, f + "." + required, "missing (url, rate and secret are required)");
                }
            }
            URI url;
            try {
                url = new URI(text(e.get("url"), f + ".url"));
            } catch (URISyntaxException x) {
                throw error(e.get("url"), f + ".url", "not a URL: " + x.getMessage());
            }
            Mapping rate = mapping(e.get("rate"), f + ".rate");
            onlyKeys(rate, f + ".rate", Set.of("per-second", "burst"));
            if (!rate.entries().containsKey("per-second")) {
                throw error(rate, f + ".rate.per-second", "missing");
            }
            Node ps = rate.entries().get("per-second");
            double perSecond;
            try {
                perSecond = Double.parseDouble(text(ps, f + ".rate.per-second"));
            } catch (NumberFormatException x) {
                throw error(ps, f + ".rate.per-second", "must be a number");
            }
            if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
                throw error(ps, f + ".rate.per-second", "must be > 0 (got " + text(ps, "") + ")");
            }
            int burst = rate.entries().containsKey("burst")
                    ? integer(rate.entries().get("burst"), f + ".rate.burst", 1)
                    : Math.max(1, (int) Math.ceil(perSecond));
            Node secretNode = e.get("secret");
            String secret = text(secretNode, f + ".secret");
            if (secret.startsWith("env:")) {
                String var = secret.substring(4);
                secret = env.apply(var);
                if (secret == null || secret.isBlank()) {
                    throw error(secretNode, f + ".secret", "environment variable " + var + " is not set");
                }
            }
            boolean idempotent = !e.containsKey("idempotent") || bool(e.get("idempotent"), f + ".idempotent");
            try {
                return new Destination(name, url, new Rate(perSecond, burst), secret, idempotent);
            } catch (IllegalArgumentException x) {
                String msg = x.getMessage();
                Node at = msg.contains("secret") ? secretNode : msg.contains("url") ? e.get("url") : node;
                String field = msg.contains("secret") ? f + ".secret" : msg.contains("url") ? f + ".url" : f;
                throw error(at, field, msg);
            }
        }
    }
}
