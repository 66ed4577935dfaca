package dev.sluice.edge.config;

import dev.sluice.edge.escalation.EscalationConfig;
import dev.sluice.edge.idempotency.IdempotencyConfig;
import dev.sluice.edge.shedding.SheddingConfig;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code shedding:}, {@code idempotency:} and {@code escalation:} sections into a
 * {@link ProtectionConfig}; every problem names its line and field, as the rest of the file's.
 */
final class ProtectionConfigReader {

    /** The top-level sections read here. */
    static final Set<String> SECTIONS = Set.of("shedding", "idempotency", "escalation");

    private static final Set<String> SHEDDING = new LinkedHashSet<>(List.of("mode", "limit", "reserved-percent",
            "retry-after", "adaptive", "fair-share-window"));
    private static final Set<String> ADAPTIVE = new LinkedHashSet<>(List.of("initial-limit", "min-limit", "max-limit"));
    private static final Set<String> IDEMPOTENCY = new LinkedHashSet<>(List.of("retention", "max-response-bytes",
            "lease", "store", "on-store-unavailable", "unavailable-retry-after"));
    private static final Set<String> ESCALATION = new LinkedHashSet<>(List.of("enabled", "threshold-percent", "window",
            "min-requests", "max-doublings", "max-retry-after", "block"));

    private ProtectionConfigReader() {
    }

    static ProtectionConfig read(ConfigNode root, int poolSize, ConfigProblems problems) {
        Optional<SheddingConfig> shedding = root.get("shedding").flatMap(n -> readShedding(n, poolSize, problems));
        IdempotencyConfig idempotency = root.get("idempotency").map(n -> readIdempotency(n, problems))
                .orElse(IdempotencyConfig.defaults());
        EscalationConfig escalation = root.get("escalation").map(n -> readEscalation(n, problems))
                .orElse(EscalationConfig.defaults());
        return new ProtectionConfig(shedding, idempotency, escalation);
    }

    private static Optional<SheddingConfig> readShedding(ConfigNode node, int poolSize, ConfigProblems problems) {
        if (node.kind() == ConfigNode.Kind.SCALAR && node.text().strip().equalsIgnoreCase("off")) {
            SheddingConfig d = SheddingConfig.defaults(poolSize);
            return Optional.of(new SheddingConfig(SheddingConfig.Mode.OFF, d.limit(), d.reservedPercent(),
                    d.retryAfter(), d.initialLimit(), d.minLimit(), d.maxLimit()));
        }
        if (!node.expectMapping(problems, "shedding settings (or off)")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, SHEDDING);
        int before = problems.list().size();
        SheddingConfig d = SheddingConfig.defaults(poolSize);
        SheddingConfig.Mode mode = node.get("mode").flatMap(n -> n.asText(problems).flatMap(t ->
                switch (t.toLowerCase(Locale.ROOT)) {
                    case "static" -> Optional.of(SheddingConfig.Mode.STATIC);
                    case "adaptive" -> Optional.of(SheddingConfig.Mode.ADAPTIVE);
                    case "off" -> Optional.of(SheddingConfig.Mode.OFF);
                    default -> {
                        problems.add(n, "must be static, adaptive or off, was \"" + t + "\"");
                        yield Optional.empty();
                    }
                })).orElse(SheddingConfig.Mode.STATIC);
        int limit = (int) EdgeConfigReader.intField(node, "limit", 1, 1_000_000, d.limit(), problems);
        int reserved = (int) EdgeConfigReader.intField(node, "reserved-percent", 0, 100, d.reservedPercent(), problems);
        Duration retryAfter = atLeastASecond(node, "retry-after", problems).orElse(d.retryAfter());
        Duration fairWindow = node.get("fair-share-window").flatMap(n -> n.text().strip().equalsIgnoreCase("off")
                ? Optional.of(Duration.ZERO) : EdgeConfigReader.readDuration(n, problems)).orElse(d.fairShareWindow());
        int initial = d.initialLimit();
        int min = d.minLimit();
        int max = d.maxLimit();
        Optional<ConfigNode> adaptive = node.get("adaptive");
        if (adaptive.isPresent() && adaptive.get().expectMapping(problems, "initial-limit, min-limit, max-limit")) {
            ConfigNode a = adaptive.get();
            a.rejectUnknownFields(problems, ADAPTIVE);
            max = (int) EdgeConfigReader.intField(a, "max-limit", 1, 1_000_000, max, problems);
            min = (int) EdgeConfigReader.intField(a, "min-limit", 1, 1_000_000, Math.min(min, max), problems);
            initial = (int) EdgeConfigReader.intField(a, "initial-limit", 1, 1_000_000, Math.max(min, Math.min(initial, max)),
                    problems);
        }
        if (problems.list().size() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new SheddingConfig(mode, limit, reserved, retryAfter, initial, min, max, fairWindow));
        } catch (IllegalArgumentException e) {
            problems.add(node, e.getMessage());
            return Optional.empty();
        }
    }

    private static IdempotencyConfig readIdempotency(ConfigNode node, ConfigProblems problems) {
        IdempotencyConfig d = IdempotencyConfig.defaults();
        if (!node.expectMapping(problems, "idempotency settings")) {
            return d;
        }
        node.rejectUnknownFields(problems, IDEMPOTENCY);
        Duration retention = node.get("retention").flatMap(n -> EdgeConfigReader.readDuration(n, problems))
                .orElse(d.retention());
        int max = (int) EdgeConfigReader.intField(node, "max-response-bytes", 0, 64L << 20, d.maxResponseBytes(), problems);
        Duration lease = node.get("lease").flatMap(n -> EdgeConfigReader.readDuration(n, problems)).orElse(d.lease());
        Optional<IdempotencyConfig.Store> store = node.get("store").flatMap(n -> n.asText(problems).flatMap(t ->
                switch (t.strip().toLowerCase(Locale.ROOT)) {
                    case "memory" -> Optional.of(IdempotencyConfig.Store.MEMORY);
                    case "redis" -> Optional.of(IdempotencyConfig.Store.REDIS);
                    default -> {
                        problems.add(n, "must be memory or redis, was \"" + t + "\"");
                        yield Optional.empty();
                    }
                }));
        IdempotencyConfig.OnStoreUnavailable onUnavailable = node.get("on-store-unavailable").flatMap(n ->
                n.asText(problems).flatMap(t -> switch (t.strip().toLowerCase(Locale.ROOT)) {
                    case "reject" -> Optional.of(IdempotencyConfig.OnStoreUnavailable.REJECT);
                    case "forward" -> Optional.of(IdempotencyConfig.OnStoreUnavailable.FORWARD);
                    default -> {
                        problems.add(n, "must be reject or forward, was \"" + t + "\"");
                        yield Optional.empty();
                    }
                })).orElse(d.onStoreUnavailable());
        Duration unavailableRetryAfter = atLeastASecond(node, "unavailable-retry-after", problems)
                .orElse(d.unavailableRetryAfter());
        try {
            return new IdempotencyConfig(retention, max, lease, store, onUnavailable, unavailableRetryAfter);
        } catch (IllegalArgumentException e) {
            problems.add(node, e.getMessage());
            return d;
        }
    }

    private static EscalationConfig readEscalation(ConfigNode node, ConfigProblems problems) {
        EscalationConfig d = EscalationConfig.defaults();
        if (!node.expectMapping(problems, "escalation settings")) {
            return d;
        }
        node.rejectUnknownFields(problems, ESCALATION);
        boolean enabled = node.get("enabled").map(n -> n.text().strip().equalsIgnoreCase("true")
                || !n.text().strip().equalsIgnoreCase("false") && flagProblem(n, problems)).orElse(d.enabled());
        int threshold = (int) EdgeConfigReader.intField(node, "threshold-percent", 1, 100, d.thresholdPercent(), problems);
        Duration window = node.get("window").flatMap(n -> EdgeConfigReader.readDuration(n, problems)).orElse(d.window());
        int min = (int) EdgeConfigReader.intField(node, "min-requests", 1, 1_000_000, d.minRequests(), problems);
        int doublings = (int) EdgeConfigReader.intField(node, "max-doublings", 0, 20, d.maxDoublings(), problems);
        Duration maxRa = node.get("max-retry-after").flatMap(n -> EdgeConfigReader.readDuration(n, problems))
                .orElse(d.maxRetryAfter());
        Duration block = node.get("block").flatMap(n -> EdgeConfigReader.readDuration(n, problems)).orElse(d.block());
        try {
            return new EscalationConfig(enabled, threshold, window, min, doublings, maxRa, block);
        } catch (IllegalArgumentException e) {
            problems.add(node, e.getMessage());
            return d;
        }
    }

    /** A Retry-After duration field: whole seconds on the wire, so at least 1s (reported at the field's line). */
    private static Optional<Duration> atLeastASecond(ConfigNode node, String field, ConfigProblems problems) {
        return node.get(field).flatMap(n -> EdgeConfigReader.readDuration(n, problems).filter(d -> {
            if (d.compareTo(Duration.ofSeconds(1)) < 0) {
                problems.add(n, "must be at least 1s (Retry-After is sent in whole seconds), was " + n.text().strip());
                return false;
            }
            return true;
        }));
    }

    private static boolean flagProblem(ConfigNode n, ConfigProblems problems) {
        problems.add(n, "must be true or false, was \"" + n.text() + "\"");
        return false;
    }
}
