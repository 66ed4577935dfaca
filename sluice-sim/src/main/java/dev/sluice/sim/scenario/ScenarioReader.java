package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.client.AdmissionConfig;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.Priority;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.RetryConfig;
import dev.sluice.client.ThrottleConfig;
import dev.sluice.sim.scenario.FleetSettings.AppRetry;
import dev.sluice.sim.scenario.FleetSettings.Arrivals;
import dev.sluice.sim.scenario.FleetSettings.CallShape;
import dev.sluice.sim.scenario.FleetSettings.SdkSettings;
import dev.sluice.sim.scenario.ServerSettings.Capacity;
import dev.sluice.sim.scenario.ServerSettings.LimitSettings;
import dev.sluice.sim.scenario.ServerSettings.Outage;
import dev.sluice.sim.scenario.ServerSettings.PolicySetting;
import dev.sluice.sim.scenario.ServerSettings.Scope;
import dev.sluice.sim.scenario.ServerSettings.ServiceTime;
import java.io.Reader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a scenario from YAML through {@code sluice-config}'s located {@link ConfigNode}s. Every
 * problem names the file, line and field ({@code retry.yaml:12: fleet.sdk.throttle.k: must be in
 * 1..1000, was 0.5}) and all problems are reported at once in one {@link ConfigException}.
 *
 * <p>The format, with every field optional unless marked. Keys are kebab-case; the snake_case
 * spelling of earlier scenario files ({@code max_attempts}) still reads, with a warning per key
 * ({@link Scenario#warnings()}):
 * <pre>{@code
 * name: jitter-blip                 # required
 * description: text
 * duration: 15s                     # required: simulated time per variant (ms, s, m, h)
 * seed: 1
 * measure: { from: 0s, to: 15s }    # window of the headline figures (default: the whole run)
 * server:
 *   rtt: 0ms                        # network round trip, half each way
 *   service-time: { distribution: constant|uniform|exponential, mean: 0ms, min: .., max: .. }
 *   limit: { scope: per-client|global, policies: [ { name: burst, q: 200, w: 1, kind: burst|daily } ] }
 *   capacity: { max-concurrent: 0, rate: none, burst: .., retry-after: none }   # over it: 503
 *   outages: [ { from: 0s, to: 5s, status: 429|503, retry-after: 5s } ]
 * fleet:
 *   clients: 1
 *   arrivals: { process: constant|poisson|burst, rate: 1.0, from: 0s, to: .., size: 1, every: .. }
 *   call: { method: POST, deadline: none, priority: interactive, cost: 1 }   # GET HEAD POST PUT DELETE OPTIONS PATCH
 *   sdk:
 *     enabled: true                 # false: a plain HTTP client (one attempt, nothing else)
 *     retry: { max-attempts: 3, jitter: true, backoff-base: 500ms, backoff-cap: 20s, max-wait: 60s }
 *     budget: { enabled: true, ratio: 0.1, window: 60s, min-retries: 10 }
 *     throttle: { enabled: true, k: 2, window: 120s, valves: true }
 *     pacer: { per-second: 0, burst: 0, pace-fraction: 0.9, follow-headers: true }
 *     admission: { max-queue: 100, max-concurrent: 64 }
 *     shared: false                 # one pacer bucket and one budget for the whole fleet (SPEC §4.8)
 *   app-retry: { attempts: 1, base: 1s, factor: 2, jitter: false, on: [429], reuse-idempotency-key: true }
 * variants:                         # each overrides the base; default: one variant "base"
 *   - { name: no jitter, fleet: { sdk: { retry: { jitter: false } } } }
 * grid:                             # instead of variants: rows × columns of overrides
 *   rows: { label: K, values: [ { name: "2", fleet: .. } ] }
 *   columns: { label: accept ratio, values: [ { name: "0.1", server: .. } ] }
 *   metric: drop_fraction
 *   expected: [ [1, 0.8, ..], [..] ]
 * }</pre>
 *
 * <p>Thread-safe (stateless).
 */
public final class ScenarioReader {

    /** The longest simulated run accepted. */
    public static final Duration MAX_DURATION = Duration.ofDays(1);
    /** The largest fleet accepted. */
    public static final int MAX_CLIENTS = 1_000_000;

    private static final Set<String> TOP = Set.of("name", "description", "duration", "seed", "measure", "server",
            "fleet", "variants", "grid");
    private static final Set<String> SERVER = Set.of("rtt", "service-time", "limit", "capacity", "outages");
    private static final Set<String> FLEET = Set.of("clients", "arrivals", "call", "sdk", "app-retry");
    /** {@code interactive} / {@code background}; {@code 0} / {@code 1} as the admission queue numbers them. */
    private static final Map<String, Priority> PRIORITIES = Map.of("interactive", Priority.INTERACTIVE,
            "background", Priority.BACKGROUND, "0", Priority.INTERACTIVE, "1", Priority.BACKGROUND);
    private static final Set<String> VARIANT = Set.of("name", "server", "fleet");

    private ScenarioReader() {
    }

    /**
     * Reads a scenario file.
     *
     * @throws ConfigException listing every problem, each with file, line and field
     */
    public static Scenario read(Path file) {
        return read(ConfigNode.parse(file));
    }

    /**
     * Reads scenario YAML; {@code source} names it in problems.
     *
     * @throws ConfigException listing every problem, each with file, line and field
     */
    public static Scenario read(String source, Reader yaml) {
        return read(ConfigNode.parse(source, null, yaml));
    }

    private static Scenario read(ConfigNode written) {
        ConfigProblems problems = new ConfigProblems();
        if (written.isNull()) {
            problems.add(written, "the scenario is empty");
            problems.throwIfAny();
        }
        // keys are kebab-case like every other Sluice file; snake_case still reads, with a warning
        ConfigNode root = written.kebabCaseKeys(problems);
        Section top = Section.of(root, problems, "a scenario", TOP);
        if (!top.present()) {
            problems.throwIfAny();
        }
        String name = top.text("name", null);
        if (name == null) {
            problems.add(root, "name: required");
        }
        String description = top.text("description", "");
        Duration duration = top.duration("duration", null);
        if (!top.has("duration")) {
            problems.add(root, "duration: required (simulated time, e.g. 60s)");
        }
        if (duration == null) {
            duration = Duration.ofSeconds(1); // absent or malformed: reported above
        } else if (duration.compareTo(Duration.ofSeconds(1)) < 0 || duration.compareTo(MAX_DURATION) > 0) {
            problems.add(top.node("duration"), "must be between 1s and 24h, was " + top.node("duration").describe());
            duration = Duration.ofSeconds(1);
        }
        long seed = top.integer("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);
        Section measure = top.section("measure", "the window of the headline figures", Set.of("from", "to"));
        Duration from = measure.duration("from", Duration.ZERO);
        Duration to = measure.duration("to", duration);
        if (from.compareTo(to) >= 0 || to.compareTo(duration) > 0) {
            problems.add(measure.present() ? measure.self() : root,
                    "measure: need 0 <= from < to <= duration, was from " + from + " to " + to);
        }

        ServerSettings server = server(top.node("server"), ServerSettings.defaults(), problems, duration);
        FleetSettings fleet = fleet(top.node("fleet"), FleetSettings.defaults(), problems);

        List<Scenario.Variant> variants = new ArrayList<>();
        Scenario.Grid grid = null;
        if (top.has("grid") && top.has("variants")) {
            problems.add(top.node("grid"), "give either variants or grid, not both");
        }
        if (top.has("grid")) {
            grid = grid(top.node("grid"), server, fleet, variants, problems, duration);
        } else if (top.has("variants")) {
            ConfigNode list = top.node("variants");
            if (list.expectSequence(problems, "variants") ) {
                if (list.elements().isEmpty()) {
                    problems.add(list, "must list at least one variant");
                }
                Set<String> names = new HashSet<>();
                for (ConfigNode v : list.elements()) {
                    Scenario.Variant variant = variant(v, server, fleet, problems, duration);
                    if (variant != null && !names.add(variant.name())) {
                        problems.add(v, "duplicate variant name \"" + variant.name() + "\"");
                    }
                    if (variant != null) {
                        variants.add(variant);
                    }
                }
            }
        } else {
            variants.add(new Scenario.Variant("base", server, fleet));
        }
        problems.throwIfAny();
        return new Scenario(name, description, root.source(), duration, seed, from, to, variants, grid,
                problems.warnings());
    }

    private static Scenario.Variant variant(ConfigNode node, ServerSettings server, FleetSettings fleet,
            ConfigProblems problems, Duration duration) {
        Section v = Section.of(node, problems, "a variant: name, server, fleet", VARIANT);
        if (!v.present()) {
            return null;
        }
        String name = v.text("name", null);
        if (name == null || name.isBlank()) {
            problems.add(node, "name: required");
            name = "?";
        }
        return new Scenario.Variant(name, server(v.node("server"), server, problems, duration),
                fleet(v.node("fleet"), fleet, problems));
    }

    private static Scenario.Grid grid(ConfigNode node, ServerSettings server, FleetSettings fleet,
            List<Scenario.Variant> out, ConfigProblems problems, Duration duration) {
        Section g = Section.of(node, problems, "a grid: rows, columns, metric, expected",
                Set.of("rows", "columns", "metric", "expected"));
        Section rows = g.section("rows", "rows: label, values", Set.of("label", "values"));
        Section columns = g.section("columns", "columns: label, values", Set.of("label", "values"));
        String metric = g.text("metric", "useful_throughput_per_s");
        if (!dev.sluice.sim.Headline.METRICS.contains(metric)) {
            problems.add(g.node("metric"), "must be one of " + String.join(", ", dev.sluice.sim.Headline.METRICS)
                    + ", was \"" + metric + "\"");
        }
        List<Section> rowValues = values(rows, "rows", problems);
        List<Section> columnValues = values(columns, "columns", problems);
        List<String> rowNames = new ArrayList<>();
        List<String> columnNames = new ArrayList<>();
        for (Section r : rowValues) {
            String rn = r.text("name", "?");
            rowNames.add(rn);
            ServerSettings rs = server(r.node("server"), server, problems, duration);
            FleetSettings rf = fleet(r.node("fleet"), fleet, problems);
            for (Section c : columnValues) {
                String cn = c.text("name", "?");
                if (rowNames.size() == 1) {
                    columnNames.add(cn);
                }
                out.add(new Scenario.Variant(rn + " / " + cn, server(c.node("server"), rs, problems, duration),
                        fleet(c.node("fleet"), rf, problems)));
            }
        }
        List<Double> expected = new ArrayList<>();
        ConfigNode e = g.node("expected");
        if (e != null && e.expectSequence(problems, "expected: one list per row")) {
            if (e.elements().size() != rowValues.size()) {
                problems.add(e, "must have one list per row (" + rowValues.size() + "), has " + e.elements().size());
            }
            for (ConfigNode row : e.elements()) {
                if (!row.expectSequence(problems, "expected values of one row")) {
                    continue;
                }
                if (row.elements().size() != columnValues.size()) {
                    problems.add(row, "must have one value per column (" + columnValues.size() + "), has "
                            + row.elements().size());
                }
                for (ConfigNode cell : row.elements()) {
                    expected.add(Section.number(cell, problems).orElse(Double.NaN));
                }
            }
        }
        if (out.isEmpty()) {
            problems.add(node, "a grid needs at least one row and one column");
        }
        return new Scenario.Grid(rows.text("label", "row"), columns.text("label", "column"), rowNames,
                columnNames, metric, expected);
    }

    private static List<Section> values(Section axis, String what, ConfigProblems problems) {
        List<Section> out = new ArrayList<>();
        ConfigNode list = axis.node("values");
        if (list == null) {
            problems.add(new dev.sluice.config.ConfigProblem(axis.present() ? axis.self().source() : "", axis.present() ? axis.self().line() : 0,
                    "grid." + what + ".values", "required"));
            return out;
        }
        if (list.expectSequence(problems, what + " values")) {
            for (ConfigNode v : list.elements()) {
                Section s = Section.of(v, problems, "a grid value: name, server, fleet", VARIANT);
                if (s.present()) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    // --- server ---

    static ServerSettings server(ConfigNode node, ServerSettings base, ConfigProblems problems, Duration duration) {
        Section s = Section.of(node, problems, "the server: " + String.join(", ", SERVER), SERVER);
        if (!s.present()) {
            return base;
        }
        Duration rtt = nonNegative(s, "rtt", base.rtt());
        ServiceTime service = serviceTime(s, base.serviceTime());
        LimitSettings limit = s.has("limit") ? limit(s.node("limit"), problems) : base.limit();
        Capacity capacity = capacity(s, base.capacity());
        List<Outage> outages = s.has("outages") ? outages(s.node("outages"), problems, duration) : base.outages();
        return new ServerSettings(rtt, service, limit, capacity, outages);
    }

    private static Duration nonNegative(Section s, String name, Duration dflt) {
        Duration d = s.duration(name, dflt);
        if (d.isNegative()) {
            s.problems().add(s.node(name), "must not be negative");
            return dflt;
        }
        return d;
    }

    private static ServiceTime serviceTime(Section server, ServiceTime base) {
        Section s = server.section("service-time", "service-time: distribution, mean, min, max",
                Set.of("distribution", "mean", "min", "max"));
        if (!s.present()) {
            return base;
        }
        ServiceTime.Distribution dist = s.choice("distribution", base.distribution(), Map.of(
                "constant", ServiceTime.Distribution.CONSTANT,
                "uniform", ServiceTime.Distribution.UNIFORM,
                "exponential", ServiceTime.Distribution.EXPONENTIAL));
        Duration mean = s.duration("mean", base.mean());
        Duration min = s.duration("min", dist == ServiceTime.Distribution.UNIFORM ? base.min() : mean);
        Duration max = s.duration("max", dist == ServiceTime.Distribution.UNIFORM ? base.max() : mean);
        if (dist == ServiceTime.Distribution.UNIFORM) {
            if (!s.has("min") || !s.has("max")) {
                s.problems().add(s.self(), "a uniform service time needs min and max");
            } else if (min.compareTo(max) > 0 || min.isNegative()) {
                s.problems().add(s.node("min"), "need 0 <= min <= max");
            }
            mean = min.plus(max).dividedBy(2);
        } else if (mean.isNegative()) {
            s.problems().add(s.node("mean"), "must not be negative");
        }
        return new ServiceTime(dist, mean, min, max);
    }

    private static LimitSettings limit(ConfigNode node, ConfigProblems problems) {
        if (node.isNull() || (node.text() != null && "none".equalsIgnoreCase(node.text().strip()))) {
            return null;
        }
        Section s = Section.of(node, problems, "the limit: scope, policies", Set.of("scope", "policies"));
        if (!s.present()) {
            return null;
        }
        Scope scope = s.node("scope") == null ? Scope.PER_CLIENT
                : s.node("scope").asEnum(problems, Scope.class).orElse(Scope.PER_CLIENT);
        List<PolicySetting> policies = new ArrayList<>();
        ConfigNode list = s.node("policies");
        if (list == null) {
            problems.add(node, "limit.policies: required");
        } else if (list.expectSequence(problems, "the limiter's policies")) {
            Set<String> names = new HashSet<>();
            for (ConfigNode p : list.elements()) {
                Section ps = Section.of(p, problems, "a policy: name, kind, q, w", Set.of("name", "kind", "q", "w"));
                if (!ps.present()) {
                    continue;
                }
                String name = ps.text("name", null);
                if (name == null || name.isBlank()) {
                    problems.add(p, "name: required");
                    continue;
                }
                if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
                    problems.add(ps.node("name"), "must be a token of letters, digits, '_', '.' or '-', was \"" + name + "\"");
                    continue;
                }
                if (!names.add(name)) {
                    problems.add(ps.node("name"), "duplicate policy name \"" + name + "\"");
                }
                boolean daily = ps.choice("kind", Boolean.FALSE, Map.of("burst", Boolean.FALSE, "daily", Boolean.TRUE));
                long q = ps.integer("q", 0, 1, 1_000_000_000L);
                if (!ps.has("q")) {
                    problems.add(p, "q: required");
                }
                long w = daily ? 86_400 : ps.integer("w", 1, 1, 86_400);
                policies.add(new PolicySetting(name, Math.max(1, q), w, daily));
            }
            if (list.elements().isEmpty()) {
                problems.add(list, "must list at least one policy");
            }
        }
        return new LimitSettings(scope, policies);
    }

    private static Capacity capacity(Section server, Capacity base) {
        Section s = server.section("capacity", "capacity: max-concurrent, rate, burst, retry-after",
                Set.of("max-concurrent", "rate", "burst", "retry-after"));
        if (!s.present()) {
            return base;
        }
        int maxConcurrent = (int) s.integer("max-concurrent", base.maxConcurrent(), 0, 10_000_000);
        double rate = base.ratePerSecond();
        ConfigNode r = s.node("rate");
        if (r != null) {
            rate = r.kind() == ConfigNode.Kind.SCALAR && "none".equalsIgnoreCase(r.text().strip())
                    ? -1 : s.number("rate", -1, 0, 1e9);
        }
        double burst = s.number("burst", s.has("rate") ? Math.max(1, rate) : base.burst(), 1, 1e9);
        Duration retryAfter = s.optionalDuration("retry-after", base.retryAfter());
        return new Capacity(maxConcurrent, rate, burst, retryAfter);
    }

    private static List<Outage> outages(ConfigNode node, ConfigProblems problems, Duration duration) {
        List<Outage> out = new ArrayList<>();
        if (node.isNull() || !node.expectSequence(problems, "outages")) {
            return out;
        }
        for (ConfigNode o : node.elements()) {
            Section s = Section.of(o, problems, "an outage: from, to, status, retry-after",
                    Set.of("from", "to", "status", "retry-after"));
            if (!s.present()) {
                continue;
            }
            if (!s.has("from") || !s.has("to")) {
                problems.add(o, "an outage needs from and to");
                continue;
            }
            Duration from = s.duration("from", Duration.ZERO);
            Duration to = s.duration("to", Duration.ZERO);
            if (from.compareTo(to) >= 0) {
                problems.add(s.node("to"), "must be after from (" + s.node("from").text() + "), was "
                        + s.node("to").text());
            }
            int status = (int) s.integer("status", 503, 400, 599);
            if (status != 429 && status != 503) {
                problems.add(s.node("status"), "must be 429 or 503, was " + status);
            }
            out.add(new Outage(from, to, status, s.optionalDuration("retry-after", null)));
        }
        return out;
    }

    // --- fleet ---

    static FleetSettings fleet(ConfigNode node, FleetSettings base, ConfigProblems problems) {
        Section s = Section.of(node, problems, "the fleet: " + String.join(", ", FLEET), FLEET);
        if (!s.present()) {
            return base;
        }
        int clients = (int) s.integer("clients", base.clients(), 1, MAX_CLIENTS);
        return new FleetSettings(clients, arrivals(s, base.arrivals()), call(s, base.call()), sdk(s, base.sdk()),
                appRetry(s, base.appRetry()));
    }

    private static Arrivals arrivals(Section fleet, Arrivals base) {
        Section s = fleet.section("arrivals", "arrivals: process, rate, from, to, size, every",
                Set.of("process", "rate", "from", "to", "size", "every"));
        if (!s.present()) {
            return base;
        }
        Arrivals.Process process = s.choice("process", base.process(), Map.of(
                "constant", Arrivals.Process.CONSTANT, "poisson", Arrivals.Process.POISSON,
                "burst", Arrivals.Process.BURST));
        double rate = s.number("rate", base.ratePerClient(), 1e-9, 1e6);
        Duration from = nonNegative(s, "from", base.from());
        Duration to = s.optionalDuration("to", base.to());
        if (to != null && to.compareTo(from) <= 0) {
            s.problems().add(s.node("to"), "must be after from");
        }
        int size = (int) s.integer("size", base.size(), 1, 1_000_000);
        Duration every = s.optionalDuration("every", base.every());
        if (every != null && !every.isPositive()) {
            s.problems().add(s.node("every"), "must be > 0");
            every = null;
        }
        if (process != Arrivals.Process.BURST && (s.has("size") || s.has("every"))) {
            s.problems().add(s.node(s.has("size") ? "size" : "every"), "only a burst process has size and every");
        }
        return new Arrivals(process, rate, from, to, size, every);
    }

    /**
     * The methods a simulated call may use (case-insensitive): RFC 9110's request methods for an API
     * call, and PATCH (RFC 5789). CONNECT and TRACE are left out: they are not API calls.
     */
    static final List<String> HTTP_METHODS = List.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH");

    private static CallShape call(Section fleet, CallShape base) {
        Section s = fleet.section("call", "call: method, deadline, priority, cost",
                Set.of("method", "deadline", "priority", "cost"));
        if (!s.present()) {
            return base;
        }
        String method = s.text("method", base.method());
        if (!HTTP_METHODS.contains(method.toUpperCase(java.util.Locale.ROOT))) {
            s.problems().add(s.node("method"), "must be one of " + String.join(", ", HTTP_METHODS)
                    + " (RFC 9110 §9.3, RFC 5789), was \"" + method + "\"");
            method = base.method();
        }
        Duration deadline = s.optionalDuration("deadline", base.deadline());
        if (deadline != null && !deadline.isPositive()) {
            s.problems().add(s.node("deadline"), "must be > 0 (or none)");
            deadline = base.deadline();
        }
        return new CallShape(method.toUpperCase(java.util.Locale.ROOT), deadline,
                s.choice("priority", base.priority(), PRIORITIES), (int) s.integer("cost", base.cost(), 1, 1_000_000));
    }

    private static SdkSettings sdk(Section fleet, SdkSettings b) {
        Section s = fleet.section("sdk", "sdk: enabled, retry, budget, throttle, pacer, admission, shared",
                Set.of("enabled", "retry", "budget", "throttle", "pacer", "admission", "shared"));
        if (!s.present()) {
            return b;
        }
        ClientConfig c = b.client();
        boolean enabled = s.bool("enabled", b.enabled());
        Section r = s.section("retry", "retry: max-attempts, jitter, backoff-base, backoff-cap, max-wait",
                Set.of("max-attempts", "jitter", "backoff-base", "backoff-cap", "max-wait"));
        boolean jitter = r.bool("jitter", b.jitter());
        // every value is range-checked above the SDK's own checks, so building cannot fail
        RetryConfig retry = c.retry().toBuilder()
                .maxAttempts((int) r.integer("max-attempts", c.retry().maxAttempts(), 1, 100))
                .backoffBase(positive(r, "backoff-base", c.retry().backoffBase()))
                .backoffCap(positive(r, "backoff-cap", c.retry().backoffCap()))
                .maxWait(positive(r, "max-wait", c.retry().maxWait())).build();
        Section bu = s.section("budget", "budget: enabled, ratio, window, min-retries",
                Set.of("enabled", "ratio", "window", "min-retries"));
        boolean budgetEnabled = bu.bool("enabled", b.budgetEnabled());
        Duration budgetWindow = atLeastASecond(bu, "window", c.budget().window());
        Duration spread = c.budget().spreadWindow().compareTo(budgetWindow) > 0 ? budgetWindow : c.budget().spreadWindow();
        RetryBudgetConfig budget = new RetryBudgetConfig(bu.number("ratio", c.budget().ratio(), 0, 1000), budgetWindow,
                (int) bu.integer("min-retries", c.budget().minRetries(), 0, 1_000_000), spread);
        Section t = s.section("throttle", "throttle: enabled, k, window, valves",
                Set.of("enabled", "k", "window", "valves"));
        ThrottleConfig throttle = new ThrottleConfig(
                t.bool("enabled", c.throttle().enabled()), t.number("k", c.throttle().k(), 1, 1000),
                atLeastASecond(t, "window", c.throttle().window()));
        boolean baseValves = c.throttle().minRequestsPerSecond() > 0 || c.throttle().maxDropProbability() < 1;
        if (!t.bool("valves", baseValves)) {
            throttle = throttle.withoutSafetyValves(); // the bare SPEC §4.5 formula, as in its table
        }
        Section p = s.section("pacer", "pacer: per-second, burst, pace-fraction, follow-headers",
                Set.of("per-second", "burst", "pace-fraction", "follow-headers"));
        double perSecond = p.number("per-second", c.pacer().documentedPerSecond(), 0, 1e9);
        double burst = p.number("burst", c.pacer().documentedBurst(), 0, 1e9);
        PacerConfig pacer = c.pacer();
        if (perSecond > 0 && burst < 1) {
            if (p.present()) {
                s.problems().add(p.self(), "a documented per-second needs a burst >= 1");
            }
        } else {
            double fraction = p.number("pace-fraction", c.pacer().paceFraction(), 0.01, 1);
            boolean follow = p.bool("follow-headers", c.pacer().followHeaders());
            PacerConfig base = perSecond > 0 ? PacerConfig.documented(perSecond, burst) : PacerConfig.defaults();
            pacer = base.withPaceFraction(fraction).withFollowHeaders(follow);
        }
        Section a = s.section("admission", "admission: max-queue, max-concurrent", Set.of("max-queue", "max-concurrent"));
        AdmissionConfig admission = AdmissionConfig.of(
                (int) a.integer("max-queue", c.admission().maxQueue(), 0, 10_000_000),
                (int) a.integer("max-concurrent", c.admission().maxConcurrent(), 1, 10_000_000));
        boolean shared = s.bool("shared", b.shared());
        return new SdkSettings(enabled, new ClientConfig(retry, budget, throttle, pacer, admission), jitter,
                budgetEnabled, shared);
    }

    private static Duration positive(Section s, String name, Duration dflt) {
        Duration d = s.duration(name, dflt);
        if (!d.isPositive()) {
            s.problems().add(s.node(name), "must be > 0");
            return dflt;
        }
        return d;
    }

    private static Duration atLeastASecond(Section s, String name, Duration dflt) {
        Duration d = s.duration(name, dflt);
        if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.toNanos() % 1_000_000_000L != 0) {
            s.problems().add(s.node(name), "must be a whole number of seconds, at least 1s");
            return dflt;
        }
        return d;
    }

    private static AppRetry appRetry(Section fleet, AppRetry b) {
        Section s = fleet.section("app-retry", "app-retry: attempts, base, factor, jitter, on, reuse-idempotency-key",
                Set.of("attempts", "base", "factor", "jitter", "on", "reuse-idempotency-key"));
        if (!s.present()) {
            return b;
        }
        int attempts = (int) s.integer("attempts", b.attempts(), 1, 100);
        Duration base = s.duration("base", b.base());
        if (base.isNegative()) {
            s.problems().add(s.node("base"), "must not be negative");
            base = b.base();
        }
        double factor = s.number("factor", b.factor(), 1, 100);
        boolean jitter = s.bool("jitter", b.jitter());
        Set<Integer> on = b.on();
        ConfigNode list = s.node("on");
        if (list != null && list.expectSequence(s.problems(), "statuses that trigger a retry, e.g. [429, 503]")) {
            Set<Integer> statuses = new LinkedHashSet<>();
            for (ConfigNode e : list.elements()) {
                var v = e.asLong(s.problems(), 0, 599);
                v.ifPresent(x -> statuses.add((int) x));
            }
            on = statuses;
        }
        return new AppRetry(attempts, base, factor, jitter, on,
                s.bool("reuse-idempotency-key", b.reuseIdempotencyKey()));
    }
}
