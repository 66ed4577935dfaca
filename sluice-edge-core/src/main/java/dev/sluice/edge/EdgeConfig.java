package dev.sluice.edge;

import dev.sluice.edge.config.ProtectionConfig;
import dev.sluice.edge.config.AdminConfig;
import dev.sluice.edge.config.EdgeConfigReader;
import dev.sluice.edge.config.ListenConfig;
import dev.sluice.edge.config.PlanSite;
import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.config.UpstreamConfig;
import dev.sluice.edge.decision.BearerCredential;
import dev.sluice.edge.route.RouteTable;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblem;
import dev.sluice.config.ConfigProblems;
import dev.sluice.limiter.config.KeyBinding;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The edge's whole configuration: one YAML file (DESIGN.md "Configuration"), validated at load with
 * every error naming the file, line and field ({@code shiplane.yaml:12: routes[1].cost: must be
 * >= 0, was -1}).
 *
 * <pre>{@code
 * listen: 0.0.0.0:8080                 # ListenConfig (default 0.0.0.0:8080)
 * admin: 127.0.0.1:9090                # AdminConfig: GET /metrics; "off" to disable
 * upstream: { url: http://127.0.0.1:8081, connect-timeout: 2s, response-timeout: 30s, pool-size: 64 }
 * store: memory                        # StoreConfig: memory (default) or a shared Redis
 * problem: { base-uri: https://docs.shiplane.example }
 * soft-limit: { threshold-percent: 80 }  # RateLimit-Warning and one quota.warning per window (SPEC §3.8)
 * key-id-secret: "..."                 # HMAC secret of the key ids in logs and events (KeyIds)
 * rate-limit-fields: true              # false: no RateLimit* fields (like-for-like benchmarks only)
 * anonymous: { plan: per-ip }          # plan of anonymous routes, per client IP; default 5 per minute
 * plans: ...                           # as LimiterConfig
 * keys: ...                            # as LimiterConfig (or key-file)
 * key-overrides:                       # per-key changes to a plan's policies (SPEC §3.13a)
 *   sk_live_big: { daily: { q: 50000 } }
 * routes:                              # first match wins; unmatched requests: * /** cost 1
 *   - { method: POST, path: /v1/labels, criticality: CRITICAL, idempotency-required: true }
 *   - { method: POST, path: "/v1/labels:batch", cost: 10 }
 *   - { method: GET, path: /v1/quotes, criticality: SHEDDABLE, dry-run: true }
 *   - { method: POST, path: /v1/login, anonymous: true }
 *   - { method: GET, path: /v1/usage, handler: usage }
 * }</pre>
 *
 * <p>Only {@code plans} (with at least one plan) is required; everything else has a default, and
 * without {@code routes} the edge serves {@code GET /v1/usage} itself and proxies everything else at
 * cost 1. See {@link EdgeConfigReader} for every field.
 *
 * <p>Immutable and thread-safe. The {@code with…} methods return a copy with one section replaced
 * (the CLI's {@code --port} flags, tests binding port 0).
 */
public final class EdgeConfig {

    /** The built-in plan of anonymous routes: 5 requests per minute per client IP (SPEC §3.7). */
    public static final Plan DEFAULT_ANONYMOUS_PLAN =
            Plan.of("anonymous", BurstPolicy.of("per-ip", 5, 60));

    /** The default soft-limit threshold, percent of a quota policy (SPEC §3.8). */
    public static final int DEFAULT_SOFT_LIMIT_PERCENT = 80;

    private final ListenConfig listen;
    private final Optional<AdminConfig> admin;
    private final UpstreamConfig upstream;
    private final StoreConfig store;
    private final ProblemConfig problem;
    private final int softLimitPercent;
    private final Plan anonymousPlan;
    private final Map<String, Plan> plans;
    private final Map<String, KeyBinding> keys;
    private final RouteTable routes;
    private final Optional<Path> source;
    private final List<Path> files;
    private final List<PlanSite> planSites;
    /** set once, by the reader or {@link #withProtection}, before the object is shared */
    private ProtectionConfig protection = ProtectionConfig.DEFAULT;
    /** set once, by the reader or {@link #withKeyIdSecret}, before the object is shared */
    private Optional<String> keyIdSecret = Optional.empty();
    /** set once, by the reader or {@link #withRateLimitFields}, before the object is shared */
    private boolean rateLimitFields = true;

    /**
     * Assembles a configuration from its parts (the reader does this; tests may too).
     *
     * @param plans the plans by name
     * @param keys the effective binding of every API key (per-key overrides applied)
     * @param files the files the configuration was read from (watched for reload)
     */
    public EdgeConfig(ListenConfig listen, Optional<AdminConfig> admin, UpstreamConfig upstream, StoreConfig store,
            ProblemConfig problem, int softLimitPercent, Plan anonymousPlan, Map<String, Plan> plans,
            Map<String, KeyBinding> keys, RouteTable routes, Optional<Path> source, List<Path> files) {
        this(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans, keys, routes, source,
                files, List.of());
    }

    /**
     * As above, with where each plan was written ({@code planSites}), so that
     * {@link #validatePlans} names the file and line of a plan a store refuses (the reader passes them).
     */
    public EdgeConfig(ListenConfig listen, Optional<AdminConfig> admin, UpstreamConfig upstream, StoreConfig store,
            ProblemConfig problem, int softLimitPercent, Plan anonymousPlan, Map<String, Plan> plans,
            Map<String, KeyBinding> keys, RouteTable routes, Optional<Path> source, List<Path> files,
            List<PlanSite> planSites) {
        this.listen = Objects.requireNonNull(listen, "listen");
        this.admin = Objects.requireNonNull(admin, "admin");
        this.upstream = Objects.requireNonNull(upstream, "upstream");
        this.store = Objects.requireNonNull(store, "store");
        this.problem = Objects.requireNonNull(problem, "problem");
        if (softLimitPercent < 1 || softLimitPercent > 100) {
            throw new IllegalArgumentException("soft-limit.threshold-percent: must be in 1..100, was "
                    + softLimitPercent);
        }
        this.softLimitPercent = softLimitPercent;
        this.anonymousPlan = Objects.requireNonNull(anonymousPlan, "anonymousPlan");
        this.plans = Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        this.keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        this.routes = Objects.requireNonNull(routes, "routes");
        this.source = Objects.requireNonNull(source, "source");
        this.files = List.copyOf(files);
        this.planSites = List.copyOf(planSites);
    }

    /**
     * Reads and validates a configuration file.
     *
     * @throws ConfigException with every problem found (file, line, field), when the file cannot be
     *     read, is not YAML, or is not a valid configuration
     */
    public static EdgeConfig load(Path file) {
        ConfigNode root = ConfigNode.parse(file);
        ConfigProblems problems = new ConfigProblems();
        EdgeConfig config = EdgeConfigReader.read(root, problems, Optional.of(file));
        problems.throwIfAny();
        return config;
    }

    /**
     * Reads and validates configuration text; {@code sourceName} names it in problems.
     *
     * @throws ConfigException with every problem found
     */
    public static EdgeConfig parse(String sourceName, String yaml) {
        ConfigNode root = ConfigNode.parse(sourceName, null, new StringReader(yaml));
        ConfigProblems problems = new ConfigProblems();
        EdgeConfig config = EdgeConfigReader.read(root, problems, Optional.empty());
        problems.throwIfAny();
        return config;
    }

    /** The {@code shedding:}, {@code idempotency:} and {@code escalation:} sections. */
    public ProtectionConfig protection() {
        return protection;
    }

    /** This configuration with other protection sections. */
    public EdgeConfig withProtection(ProtectionConfig newProtection) {
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans, keys,
                routes, source, files, planSites)
                .carrying(Objects.requireNonNull(newProtection, "newProtection"), keyIdSecret, rateLimitFields);
    }

    /**
     * {@code key-id-secret}: the HMAC secret of the ids under which keys appear in logs and events
     * ({@link dev.sluice.edge.decision.KeyIds}); empty for the built-in one. Never printed.
     */
    public Optional<String> keyIdSecret() {
        return keyIdSecret;
    }

    /** This configuration with another key-id secret (empty: the built-in one). */
    public EdgeConfig withKeyIdSecret(Optional<String> secret) {
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans, keys,
                routes, source, files, planSites).carrying(protection, Objects.requireNonNull(secret, "secret"), rateLimitFields);
    }

    /**
     * {@code rate-limit-fields}: whether responses to a key carry {@code RateLimit-Policy},
     * {@code RateLimit} and {@code RateLimit-Warning} (draft-ietf-httpapi-ratelimit-headers-11; SPEC §2.2
     * requires them, so the default is {@code true}). {@code false} leaves them out of every response
     * (the usage endpoint's body still reports the limits); it exists to compare the edge like for like
     * with proxies that send no such fields (nginx {@code limit_req}, bench/results/edge.md).
     */
    public boolean rateLimitFields() {
        return rateLimitFields;
    }

    /** This configuration with the RateLimit fields on or off (see {@link #rateLimitFields()}). */
    public EdgeConfig withRateLimitFields(boolean on) {
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans, keys,
                routes, source, files, planSites).carrying(protection, keyIdSecret, on);
    }

    private EdgeConfig carrying(ProtectionConfig p, Optional<String> secret, boolean fields) {
        this.protection = p;
        this.keyIdSecret = secret;
        this.rateLimitFields = fields;
        return this;
    }

    public ListenConfig listen() {
        return listen;
    }

    /** The admin (metrics) endpoint; empty when disabled ({@code admin: off}). */
    public Optional<AdminConfig> admin() {
        return admin;
    }

    public UpstreamConfig upstream() {
        return upstream;
    }

    /** Where limiter state lives: {@link StoreConfig#MEMORY} or a shared Redis. Fixed at start. */
    public StoreConfig store() {
        return store;
    }

    /**
     * Asks {@code check} (a store's {@code validate}) about every plan a request can be decided under:
     * each configured plan, each key's effective plan (overrides, renewal days) and the anonymous plan,
     * each distinct plan once. The edge calls it at start and before a reload is applied (SPEC §3.14: a
     * plan the store cannot represent fails at load, not on a request).
     *
     * @throws ConfigException listing every plan {@code check} refused with an
     *     {@link IllegalArgumentException}, each at the file, line and field where it was written
     *     ({@code plans.free} or {@code key-overrides.sk_1}; line 0 for a plan not read from a file)
     */
    public void validatePlans(Consumer<Plan> check) {
        Objects.requireNonNull(check, "check");
        Map<Plan, PlanSite> byPlan = new HashMap<>();
        Map<String, PlanSite> byName = new HashMap<>();
        for (PlanSite site : planSites) {
            byPlan.putIfAbsent(site.plan(), site);
            if (site.path().equals("plans." + site.plan().name())) {
                byName.putIfAbsent(site.plan().name(), site);
            }
        }
        Set<Plan> all = new LinkedHashSet<>(plans.values());
        keys.values().forEach(b -> all.add(b.plan()));
        all.add(anonymousPlan);
        String sourceName = source.map(Path::toString).orElse("(configuration)");
        Set<ConfigProblem> refused = new LinkedHashSet<>(); // a plan and its renewal-day copies: one line
        for (Plan plan : all) {
            try {
                check.accept(plan);
            } catch (IllegalArgumentException e) {
                // an anchored copy (renewal-day) is written where its plan is
                PlanSite site = byPlan.getOrDefault(plan, byName.get(plan.name()));
                refused.add(site == null
                        ? new ConfigProblem(sourceName, 0, "plans." + plan.name(), e.getMessage())
                        : new ConfigProblem(site.source(), site.line(), site.path(), e.getMessage()));
            }
        }
        if (!refused.isEmpty()) {
            throw new ConfigException(List.copyOf(refused));
        }
    }

    public ProblemConfig problem() {
        return problem;
    }

    /** The soft-limit threshold in percent of a quota policy's {@code q}, 1..100 (SPEC §3.8). */
    public int softLimitPercent() {
        return softLimitPercent;
    }

    /** The plan that limits each client IP on anonymous routes (SPEC §3.7). */
    public Plan anonymousPlan() {
        return anonymousPlan;
    }

    /** The plans by name, in file order. */
    public Map<String, Plan> plans() {
        return plans;
    }

    /** Every API key's effective binding (its plan with per-key overrides applied), in file order. */
    public Map<String, KeyBinding> keys() {
        return keys;
    }

    /** The binding of {@code apiKey}, if the key is configured. */
    public Optional<KeyBinding> binding(String apiKey) {
        return Optional.ofNullable(keys.get(apiKey));
    }

    public RouteTable routes() {
        return routes;
    }

    /** The file this configuration was loaded from; empty for text or assembled configurations. */
    public Optional<Path> source() {
        return source;
    }

    /** Every file it was read from (the configuration and its key file): what a reload watches. */
    public List<Path> files() {
        return files;
    }

    /** A copy listening on {@code port} (0: any free port). */
    public EdgeConfig withListenPort(int port) {
        return withListen(listen.withPort(port));
    }

    public EdgeConfig withListen(ListenConfig newListen) {
        return new EdgeConfig(newListen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans,
                keys, routes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    /** A copy with the admin endpoint on {@code port} (0: any free port). */
    public EdgeConfig withAdminPort(int port) {
        return withAdmin(Optional.of(admin.orElse(AdminConfig.DEFAULT).withPort(port)));
    }

    /** A copy with the admin endpoint replaced; empty disables it. */
    public EdgeConfig withAdmin(Optional<AdminConfig> newAdmin) {
        return new EdgeConfig(listen, newAdmin, upstream, store, problem, softLimitPercent, anonymousPlan, plans,
                keys, routes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    /**
     * A copy proxying to {@code url} ({@code http://host:port}).
     *
     * @throws IllegalArgumentException unless {@code url} is {@code http://host[:port]}
     */
    public EdgeConfig withUpstreamUrl(URI url) {
        return withUpstream(upstream.withUrl(url));
    }

    public EdgeConfig withUpstream(UpstreamConfig newUpstream) {
        return new EdgeConfig(listen, admin, newUpstream, store, problem, softLimitPercent, anonymousPlan, plans,
                keys, routes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    /**
     * A copy with {@code apiKey} bound to the plan named {@code planName} (replacing any binding it
     * had): the demo's generated keys, tests.
     *
     * @throws IllegalArgumentException when no plan has that name, or the key is not a valid bearer
     *     token
     */
    public EdgeConfig withKey(String apiKey, String planName) {
        Plan plan = plans.get(planName);
        if (plan == null) {
            throw new IllegalArgumentException("unknown plan \"" + planName + "\" (plans: "
                    + String.join(", ", plans.keySet()) + ")");
        }
        if (!(BearerCredential.parse(List.of("Bearer " + apiKey)) instanceof BearerCredential.Token)) {
            throw new IllegalArgumentException("apiKey: not a valid bearer token: \"" + apiKey + "\"");
        }
        Map<String, KeyBinding> more = new LinkedHashMap<>(keys);
        more.put(apiKey, new KeyBinding(apiKey, plan, 0));
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans,
                more, routes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    /** A copy with another store section (a reload keeps the running one: the store is fixed at start). */
    public EdgeConfig withStore(StoreConfig newStore) {
        return new EdgeConfig(listen, admin, upstream, newStore, problem, softLimitPercent, anonymousPlan, plans,
                keys, routes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    /** A copy with another route table (tests; a reload reads the file). */
    public EdgeConfig withRoutes(RouteTable newRoutes) {
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimitPercent, anonymousPlan, plans,
                keys, newRoutes, source, files, planSites).carrying(protection, keyIdSecret, rateLimitFields);
    }

    @Override
    public String toString() {
        return "EdgeConfig[" + source.map(Path::toString).orElse("(text)") + ", listen " + listen.host() + ":"
                + listen.port() + ", upstream " + upstream.url() + ", store " + store + ", " + plans.size()
                + " plans, " + keys.size() + " keys, " + routes.routes().size() + " routes]";
    }
}
