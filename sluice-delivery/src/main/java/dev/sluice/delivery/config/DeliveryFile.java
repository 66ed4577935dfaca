package dev.sluice.delivery.config;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblem;
import dev.sluice.config.ConfigProblems;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.StoreLocation;
import dev.sluice.delivery.redaction.JsonRedactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * The delivery worker's YAML configuration, validated at load through {@code sluice-config}: every
 * problem at once, each naming the file, line and field, in one {@link ConfigException}. Durations use
 * the shared grammar ({@code 250ms}, {@code 1.5s}, {@code 5m}, {@code 72h}, {@code 3d}, {@code PT3S}).
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
 *     url: http://127.0.0.1:8082/webhooks
 *     rate: { per-second: 10, burst: 20 }
 *     secret: env:MERCHANT_A_SECRET     # or the whsec_... value itself
 *     idempotent: true
 * }</pre>
 *
 * Every key is optional except each destination's {@code url}, {@code rate} and {@code secret};
 * unknown keys are errors, with the nearest known key (a typo must not silently fall back to a default).
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
     * @throws ConfigException with every problem (missing file, not YAML, invalid fields)
     */
    public static DeliveryFile load(Path file) {
        return load(file, System::getenv);
    }

    /**
     * Reads and validates {@code file}, resolving {@code env:NAME} secrets with {@code env}.
     *
     * @throws ConfigException with every problem (missing file, not YAML, invalid fields), each with
     *     file, line and field
     */
    public static DeliveryFile load(Path file, Function<String, String> env) {
        return read(file, ConfigNode.parse(file), env);
    }

    /** Validates an already parsed tree; {@code file} names it in problems. */
    static DeliveryFile read(Path file, ConfigNode root, Function<String, String> env) {
        ConfigProblems problems = new ConfigProblems();
        DeliveryFile read = new Loader(file, env, problems).load(root);
        problems.throwIfAny();
        return read;
    }

    /** Typed reading into one {@link ConfigProblems}; what it returns is usable only if that stays empty. */
    private static final class Loader {
        private static final Set<String> TOP =
                ordered("store", "schema", "worker", "max-age", "redact", "destinations");
        private static final Set<String> WORKER = ordered("concurrency", "request-timeout", "lease", "poll-interval",
                "max-retry-after");
        private static final Set<String> DESTINATION = ordered("url", "rate", "secret", "idempotent");
        private static final Set<String> RATE = ordered("per-second", "burst");

        private static final double MAX_PER_SECOND = 1_000_000;

        private final Path file;
        private final Function<String, String> env;
        private final ConfigProblems problems;

        Loader(Path file, Function<String, String> env, ConfigProblems problems) {
            this.file = file;
            this.env = env;
            this.problems = problems;
        }

        private static Set<String> ordered(String... names) {
            return new LinkedHashSet<>(List.of(names));
        }

        private Optional<Duration> positive(ConfigNode node) {
            return node.asDuration(problems, Duration.ofNanos(1), Duration.ofDays(10_000));
        }

        DeliveryFile load(ConfigNode root) {
            if (root.isNull()) {
                return new DeliveryFile(file, StoreLocation.DEFAULT, null, DeliveryConfig.defaults(), List.of());
            }
            if (!root.expectMapping(problems, "the delivery configuration")) {
                return defaults();
            }
            root.rejectUnknownFields(problems, TOP);
            String store = root.get("store").flatMap(n -> n.asText(problems).filter(text -> {
                try {
                    StoreLocation.parse(text);
                    return true;
                } catch (IllegalArgumentException e) {
                    problems.add(n, e.getMessage());
                    return false;
                }
            })).orElse(StoreLocation.DEFAULT);
            String schema = root.get("schema").flatMap(n -> n.asText(problems).filter(text -> {
                if (!text.matches("[a-z_][a-z0-9_]{0,62}")) {
                    problems.add(n, "must match [a-z_][a-z0-9_]{0,62}, was \"" + text + "\"");
                    return false;
                }
                return true;
            })).orElse(null);

            DeliveryConfig.Builder b = DeliveryConfig.builder();
            root.get("worker").filter(w -> w.expectMapping(problems, "worker settings")).ifPresent(w -> {
                w.rejectUnknownFields(problems, WORKER);
                w.get("concurrency").ifPresent(n -> n.asLong(problems, 1, Integer.MAX_VALUE)
                        .ifPresent(v -> b.concurrency((int) v)));
                w.get("request-timeout").flatMap(this::positive).ifPresent(b::requestTimeout);
                w.get("lease").flatMap(this::positive).ifPresent(b::lease);
                w.get("poll-interval").flatMap(this::positive).ifPresent(b::pollInterval);
                w.get("max-retry-after").flatMap(this::positive).ifPresent(b::maxRetryAfter);
            });
            root.get("max-age").filter(m -> m.expectMapping(problems, "event type to maximum age")).ifPresent(m ->
                    m.fields().forEach((type, n) -> positive(n).ifPresent(d -> {
                        if (type.equals("default")) {
                            b.defaultMaxAge(d);
                        } else {
                            b.maxAge(type, d);
                        }
                    })));
            root.get("redact").filter(r -> r.expectSequence(problems, "JSON paths")).ifPresent(r -> {
                List<String> paths = new ArrayList<>();
                for (ConfigNode item : r.elements()) {
                    item.asText(problems).ifPresent(path -> {
                        try {
                            JsonRedactor.of(List.of(path));
                            paths.add(path);
                        } catch (IllegalArgumentException e) {
                            problems.add(item, e.getMessage());
                        }
                    });
                }
                b.redactPaths(paths);
            });
            DeliveryConfig config = DeliveryConfig.defaults();
            try {
                config = b.build();
            } catch (IllegalArgumentException e) {
                problems.add(root.get("worker").orElse(root), e.getMessage());
            }
            List<Destination> destinations = new ArrayList<>();
            root.get("destinations").filter(d -> d.expectMapping(problems, "destination name to settings"))
                    .ifPresent(d -> d.fields().forEach((name, node) ->
                            destination(name, node).ifPresent(destinations::add)));
            return new DeliveryFile(file, store, schema, config, destinations);
        }

        Optional<Destination> destination(String name, ConfigNode node) {
            if (!node.expectMapping(problems, "url, rate, secret, idempotent")) {
                return Optional.empty();
            }
            node.rejectUnknownFields(problems, DESTINATION);
            int before = problems.count();
            for (String required : List.of("url", "rate", "secret")) {
                if (node.get(required).isEmpty()) {
                    problems.add(new ConfigProblem(node.source(), node.line(), node.path() + "." + required,
                            "missing (url, rate and secret are required)"));
                }
            }
            Optional<URI> url = node.get("url").flatMap(n -> n.asText(problems).flatMap(text -> {
                try {
                    return Optional.of(new URI(text));
                } catch (URISyntaxException e) {
                    problems.add(n, "not a URL: " + e.getMessage());
                    return Optional.empty();
                }
            }));
            Optional<Rate> rate = node.get("rate").flatMap(this::rate);
            Optional<String> secret = node.get("secret").flatMap(n -> n.asText(problems).flatMap(text -> {
                if (!text.startsWith("env:")) {
                    return Optional.of(text);
                }
                String value = env.apply(text.substring(4));
                if (value == null || value.isBlank()) {
                    problems.add(n, "environment variable " + text.substring(4) + " is not set");
                    return Optional.empty();
                }
                return Optional.of(value);
            }));
            boolean idempotent = node.get("idempotent").map(n -> n.asBoolean(problems).orElse(true)).orElse(true);
            if (problems.count() != before || url.isEmpty() || rate.isEmpty() || secret.isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Destination(name, url.get(), rate.get(), secret.get(), idempotent));
            } catch (IllegalArgumentException e) {
                String message = e.getMessage();
                String field = message.contains("secret") ? "secret" : message.contains("url") ? "url" : null;
                problems.add(field == null ? node : node.get(field).orElse(node), message);
                return Optional.empty();
            }
        }

        Optional<Rate> rate(ConfigNode node) {
            if (!node.expectMapping(problems, "per-second, burst")) {
                return Optional.empty();
            }
            node.rejectUnknownFields(problems, RATE);
            Optional<ConfigNode> perSecondNode = node.get("per-second");
            if (perSecondNode.isEmpty()) {
                problems.add(node, "per-second: missing");
                return Optional.empty();
            }
            ConfigNode ps = perSecondNode.get();
            Optional<Double> perSecond = ps.asDouble(problems, -Double.MAX_VALUE, Double.MAX_VALUE).filter(v -> {
                if (v <= 0) {
                    problems.add(ps, "must be > 0, was " + ps.text());
                    return false;
                }
                if (v > MAX_PER_SECOND) {
                    // the bucket counts in microseconds: one token per microsecond is its finest rate
                    problems.add(ps, "must be at most " + (long) MAX_PER_SECOND + " (one request a microsecond), was "
                            + ps.text());
                    return false;
                }
                return true;
            });
            OptionalLong burst = node.get("burst").map(n -> n.asLong(problems, 1, Integer.MAX_VALUE))
                    .orElse(perSecond.map(v -> OptionalLong.of(Math.max(1, (long) Math.ceil(v))))
                            .orElse(OptionalLong.empty()));
            if (perSecond.isEmpty() || burst.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Rate(perSecond.get(), (int) burst.getAsLong()));
        }
    }
}
