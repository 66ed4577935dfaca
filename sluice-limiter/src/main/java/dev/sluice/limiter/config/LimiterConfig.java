package dev.sluice.limiter.config;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.quota.CalendarWindow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The limiter's part of the configuration file (DESIGN.md "Configuration"): the {@code plans} and
 * the {@code keys} (inline, or in a {@code key-file}). Other top-level sections ({@code listen},
 * {@code routes}, ...) belong to other readers and are ignored here.
 *
 * <pre>{@code
 * plans:
 *   free:
 *     policies:
 *       - { name: burst, kind: burst, q: 20, w: 2 }             # 10 req/s, burst 20
 *       - { name: daily, kind: quota, q: 10000, window: daily }
 *   pro:
 *     policies:
 *       - { name: burst, kind: burst, q: 200, w: 2 }
 *       - { name: monthly, kind: quota, q: 5000000, window: monthly, anchor-day: 1 }
 *       - { name: upload, kind: burst, q: 10000000, w: 1, unit: content-bytes }
 *       - { name: inflight, kind: concurrency, q: 10 }           # 10 requests in flight at most
 * keys:
 *   sk_test_free_1: free
 *   sk_test_pro_1: { plan: pro, renewal-day: 15 }
 * key-file: keys.yaml        # optional; the same mapping as `keys`, path relative to this file
 * }</pre>
 *
 * <p>Policy fields: {@code name} (required), {@code kind} ({@code burst} | {@code quota} |
 * {@code concurrency}, required; a concurrency policy takes only {@code name}, {@code q}, {@code pk}
 * and, optionally, {@code unit: concurrent-requests}),
 * {@code q} (integer &gt; 0, required), {@code w} (seconds &gt; 0, burst only, required there),
 * {@code window} ({@code daily} | {@code monthly}, quota only, required there), {@code anchor-day}
 * (monthly only, 1..31, default 1; a key's {@code renewal-day} overrides it), {@code unit}
 * ({@code requests} (default) | {@code content-bytes}; {@code concurrent-requests} only with
 * {@code kind: concurrency}), {@code pk} (partition key, optional).
 *
 * <p>Errors name the file, line and field and are collected: {@link #load(Path)} reports them all at
 * once in a {@link ConfigException}. Immutable and thread-safe.
 */
public final class LimiterConfig {

    private static final Set<String> POLICY_FIELDS =
            new LinkedHashSet<>(List.of("name", "kind", "q", "w", "window", "anchor-day", "unit", "pk"));
    private static final Set<String> PLAN_FIELDS = Set.of("policies");
    /** The top-level sections this reader owns. */
    public static final Set<String> OWN_SECTIONS = Set.of("plans", "keys", "key-file");
    private static final Set<String> BINDING_FIELDS = new LinkedHashSet<>(List.of("plan", "renewal-day"));

    private final Map<String, Plan> plans;
    private final Map<String, KeyBinding> keys;

    private LimiterConfig(Map<String, Plan> plans, Map<String, KeyBinding> keys) {
        this.plans = Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        this.keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
    }

    /**
     * Reads and validates {@code file}.
     *
     * @throws ConfigException with every problem found (file, line, field), if any
     */
    public static LimiterConfig load(Path file) {
        ConfigNode root = ConfigNode.parse(file);
        ConfigProblems problems = new ConfigProblems();
        LimiterConfig config = read(root, problems);
        problems.throwIfAny();
        return config;
    }

    /**
     * Reads the {@code plans}, {@code keys} and {@code key-file} sections of {@code root}, adding
     * every problem to {@code problems} instead of throwing, so that a caller reading more sections
     * of the same file reports everything at once. Returns what could be read; use it only if
     * {@code problems} stays empty.
     */
    public static LimiterConfig read(ConfigNode root, ConfigProblems problems) {
        Map<String, Plan> plans = new LinkedHashMap<>();
        Set<String> declared = new LinkedHashSet<>();
        Map<String, KeyBinding> keys = new LinkedHashMap<>();
        if (!root.expectMapping(problems, "the configuration document")) {
            return new LimiterConfig(plans, keys);
        }
        // other readers own the other sections; a near miss of ours (kyes, plan) is still a typo
        root.rejectMisspelledSections(problems, OWN_SECTIONS);
        Optional<ConfigNode> plansNode = root.get("plans");
        if (plansNode.isEmpty()) {
            problems.add(root, "plans: required (at least one plan)");
        } else if (plansNode.get().expectMapping(problems, "plan name to plan")) {
            if (plansNode.get().fields().isEmpty()) {
                problems.add(plansNode.get(), "must declare at least one plan");
            }
            plansNode.get().fields().forEach((name, node) -> {
                declared.add(name);
                readPlan(name, node, problems).ifPresent(plan -> plans.put(name, plan));
            });
        }
        Map<AnchorKey, Plan> anchored = new HashMap<>();
        root.get("keys").ifPresent(node -> readKeys(node, plans, declared, anchored, keys, problems));
        root.get("key-file").ifPresent(node -> node.asText(problems).ifPresent(relative -> {
            Path file = node.resolve(relative);
            if (!Files.isReadable(file)) {
                problems.add(node, "cannot read key file " + file);
                return;
            }
            try {
                readKeys(ConfigNode.parse(file), plans, declared, anchored, keys, problems);
            } catch (ConfigException e) {
                e.problems().forEach(problems::add);
            }
        }));
        return new LimiterConfig(plans, keys);
    }

    /** The plans by name, in file order. */
    public Map<String, Plan> plans() {
        return plans;
    }

    /** The key bindings by API key, in file order (inline keys first, then the key file's). */
    public Map<String, KeyBinding> keys() {
        return keys;
    }

    /** The binding of {@code apiKey}, if it is configured. */
    public Optional<KeyBinding> binding(String apiKey) {
        return Optional.ofNullable(keys.get(apiKey));
    }

    private static Optional<Plan> readPlan(String name, ConfigNode node, ConfigProblems problems) {
        if (!node.expectMapping(problems, "a plan with its policies")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, PLAN_FIELDS);
        Optional<ConfigNode> list = node.get("policies");
        if (list.isEmpty()) {
            problems.add(node, "policies: required (a plan needs at least one policy)");
            return Optional.empty();
        }
        if (!list.get().expectSequence(problems, "of policies")) {
            return Optional.empty();
        }
        if (list.get().elements().isEmpty()) {
            problems.add(list.get(), "must not be empty (a plan needs at least one policy)");
            return Optional.empty();
        }
        List<Policy> policies = new ArrayList<>();
        Map<String, ConfigNode> names = new HashMap<>();
        boolean complete = true;
        for (ConfigNode element : list.get().elements()) {
            Optional<Policy> policy = readPolicy(element, problems);
            complete &= policy.isPresent();
            policy.ifPresent(policies::add);
            // duplicates are checked on the written names, so they are found even in broken policies
            Optional<ConfigNode> nameNode = element.get("name").filter(n -> n.text() != null);
            if (nameNode.isPresent()) {
                ConfigNode first = names.putIfAbsent(nameNode.get().text(), nameNode.get());
                if (first != null) {
                    problems.add(nameNode.get(), "duplicate policy name \"" + nameNode.get().text()
                            + "\" (first at line " + first.line() + ")");
                    complete = false;
                }
            }
        }
        if (!complete) {
            return Optional.empty();
        }
        try {
            return Optional.of(Plan.of(name, policies));
        } catch (IllegalArgumentException e) {
            problems.add(node, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Reports a policy constructor's error at the field its message names ({@code "name: must be
     * printable ASCII"} goes to {@code name}); at the policy itself when the field is not written.
     */
    private static void addToNamedField(ConfigNode policy, IllegalArgumentException e, ConfigProblems problems) {
        String message = String.valueOf(e.getMessage());
        int colon = message.indexOf(": ");
        if (colon > 0) {
            Optional<ConfigNode> field = policy.get(message.substring(0, colon));
            if (field.isPresent()) {
                problems.add(field.get(), message.substring(colon + 2));
                return;
            }
        }
        problems.add(policy, message);
    }

    private static Optional<Policy> readPolicy(ConfigNode node, ConfigProblems problems) {
        if (!node.expectMapping(problems, "a policy")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, POLICY_FIELDS);
        int before = problems.count();
        Optional<String> name = required(node, "name", problems).flatMap(n -> n.asText(problems));
        Optional<String> kind = required(node, "kind", problems).flatMap(n -> n.asText(problems));
        OptionalLong q = required(node, "q", problems)
                .map(n -> n.asLong(problems, 1, Long.MAX_VALUE)).orElse(OptionalLong.empty());
        boolean concurrency = kind.isPresent() && kind.get().equals("concurrency");
        QuotaUnit unit = node.get("unit").flatMap(n -> readUnit(n, concurrency, problems)).orElse(QuotaUnit.REQUESTS);
        String pk = node.get("pk").flatMap(n -> n.asText(problems)).orElse(null);
        if (kind.isPresent() && !kind.get().equals("burst") && !kind.get().equals("quota") && !concurrency) {
            problems.add(node.get("kind").orElseThrow(), "must be burst, quota or concurrency, was \""
                    + kind.get() + "\"");
            return Optional.empty();
        }
        if (kind.isEmpty()) {
            return Optional.empty();
        }
        Policy policy = null;
        if (concurrency) {
            String why = "a concurrency policy counts requests in flight; it has no window";
            forbid(node, "w", why, problems);
            forbid(node, "window", why, problems);
            forbid(node, "anchor-day", why, problems);
            if (problems.count() == before && name.isPresent() && q.isPresent()) {
                try {
                    policy = new ConcurrencyPolicy(name.get(), q.getAsLong(), pk);
                } catch (IllegalArgumentException e) {
                    addToNamedField(node, e, problems);
                }
            }
        } else if (kind.get().equals("burst")) {
            forbid(node, "window", "burst policies refill continuously; window is for quota policies", problems);
            forbid(node, "anchor-day", "anchor-day is for monthly quota policies", problems);
            OptionalLong w = required(node, "w", problems)
                    .map(n -> n.asLong(problems, 1, BurstPolicy.MAX_WINDOW_SECONDS, "whole seconds like 60"))
                    .orElse(OptionalLong.empty());
            if (problems.count() == before && name.isPresent() && q.isPresent() && w.isPresent()) {
                try {
                    policy = new BurstPolicy(name.get(), q.getAsLong(), w.getAsLong(), unit, pk);
                } catch (IllegalArgumentException e) {
                    addToNamedField(node, e, problems);
                }
            }
        } else {
            forbid(node, "w", "a quota policy's window sets w (daily 86400, monthly 2592000)", problems);
            Optional<CalendarWindow> window = required(node, "window", problems).flatMap(n -> readWindow(n, problems));
            if (window.isPresent() && node.get("anchor-day").isPresent()) {
                ConfigNode anchorNode = node.get("anchor-day").get();
                if (window.get() instanceof CalendarWindow.Monthly) {
                    OptionalLong day = anchorNode.asLong(problems, 1, 31);
                    window = day.isPresent() ? Optional.of(CalendarWindow.monthly((int) day.getAsLong())) : Optional.empty();
                } else {
                    problems.add(anchorNode, "anchor-day is for monthly quota policies");
                }
            }
            if (problems.count() == before && name.isPresent() && q.isPresent() && window.isPresent()) {
                try {
                    policy = new QuotaPolicy(name.get(), q.getAsLong(), window.get(), unit, pk);
                } catch (IllegalArgumentException e) {
                    addToNamedField(node, e, problems);
                }
            }
        }
        return Optional.ofNullable(policy);
    }

    private static Optional<QuotaUnit> readUnit(ConfigNode node, boolean concurrency, ConfigProblems problems) {
        Optional<String> text = node.asText(problems);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Optional<QuotaUnit> unit = QuotaUnit.fromWireName(text.get());
        if (concurrency) {
            if (unit.isEmpty() || unit.get() != QuotaUnit.CONCURRENT_REQUESTS) {
                problems.add(node, "a concurrency policy counts concurrent-requests, was \"" + text.get() + "\"");
            }
            return Optional.empty();
        }
        if (unit.isPresent() && unit.get() == QuotaUnit.CONCURRENT_REQUESTS) {
            problems.add(node, "concurrent-requests is the unit of kind: concurrency, not of a burst or quota"
                    + " policy");
            return Optional.empty();
        }
        if (unit.isEmpty()) {
            problems.add(node, "must be requests or content-bytes, was \"" + text.get() + "\"");
            return Optional.empty();
        }
        return unit;
    }

    private static Optional<CalendarWindow> readWindow(ConfigNode node, ConfigProblems problems) {
        Optional<String> text = node.asText(problems);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        return switch (text.get()) {
            case "daily" -> Optional.of(CalendarWindow.daily());
            case "monthly" -> Optional.of(CalendarWindow.monthly(1));
            default -> {
                problems.add(node, "must be daily or monthly, was \"" + text.get() + "\"");
                yield Optional.empty();
            }
        };
    }

    private record AnchorKey(String plan, int day) {}

    private static void readKeys(ConfigNode node, Map<String, Plan> plans, Set<String> declared,
            Map<AnchorKey, Plan> anchored, Map<String, KeyBinding> keys, ConfigProblems problems) {
        if (!node.expectMapping(problems, "API key to plan name")) {
            return;
        }
        node.fields().forEach((key, value) -> {
            ConfigNode planNode = value;
            int renewalDay = 0;
            if (value.isMapping()) {
                value.rejectUnknownFields(problems, BINDING_FIELDS);
                Optional<ConfigNode> p = required(value, "plan", problems);
                if (p.isEmpty()) {
                    return;
                }
                planNode = p.get();
                Optional<ConfigNode> day = value.get("renewal-day");
                if (day.isPresent()) {
                    OptionalLong d = day.get().asLong(problems, 1, 31);
                    if (d.isEmpty()) {
                        return;
                    }
                    renewalDay = (int) d.getAsLong();
                }
            }
            Optional<String> planName = planNode.asText(problems);
            if (planName.isEmpty()) {
                return;
            }
            if (keys.containsKey(key)) {
                problems.add(value, "duplicate key (already bound to plan " + keys.get(key).plan().name() + ")");
                return;
            }
            Plan plan = plans.get(planName.get());
            if (plan == null) {
                if (!declared.contains(planName.get())) {
                    problems.add(planNode, "unknown plan \"" + planName.get() + "\" (plans: "
                            + String.join(", ", declared) + ")");
                }
                return; // a declared plan with errors has been reported already
            }
            int day = renewalDay;
            Plan bound = day == 0 ? plan
                    : anchored.computeIfAbsent(new AnchorKey(plan.name(), day), k -> plan.withAnchorDay(day));
            keys.put(key, new KeyBinding(key, bound, renewalDay));
        });
    }

    private static Optional<ConfigNode> required(ConfigNode node, String field, ConfigProblems problems) {
        Optional<ConfigNode> value = node.get(field);
        if (value.isEmpty()) {
            problems.add(node, field + ": required");
        }
        return value;
    }

    private static void forbid(ConfigNode node, String field, String why, ConfigProblems problems) {
        node.get(field).ifPresent(n -> problems.add(n, "not allowed here: " + why));
    }
}
