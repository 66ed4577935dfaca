package dev.sluice.edge.config;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.idempotency.IdempotencyConfig;
import dev.sluice.edge.route.Criticality;
import dev.sluice.edge.route.PathPattern;
import dev.sluice.edge.route.Route;
import dev.sluice.edge.route.RouteTable;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.limiter.config.KeyBinding;
import dev.sluice.limiter.config.LimiterConfig;
import dev.sluice.limiter.spi.FailureMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads the edge's sections of the configuration document and, through
 * {@link LimiterConfig#read(ConfigNode, ConfigProblems)}, the limiter's {@code plans} / {@code keys}.
 * Every problem is collected against its node, so one run reports them all, each as
 * {@code file:line: path: message}.
 *
 * <p>Values use {@code sluice-config}'s shared forms: durations {@code 500ms}, {@code 1.5s}, {@code 1m},
 * {@code 1h}, {@code 3d}; sizes {@code 16384} or {@code 16KiB}; percentages {@code 20} or {@code 20%};
 * booleans are YAML booleans. Route fields: {@code method} ({@code GET}, ..., or {@code *}; default {@code *}),
 * {@code path} (required, see {@link PathPattern}), {@code cost} (default 1), {@code criticality}
 * ({@code CRITICAL_PLUS | CRITICAL | SHEDDABLE_PLUS | SHEDDABLE}, default {@code CRITICAL}),
 * {@code anonymous}, {@code dry-run}, {@code idempotency-required} (default false), {@code handler}
 * ({@code proxy} (default) | {@code usage}), {@code failure-mode} ({@code fail-open-degraded} |
 * {@code fail-closed}; default: the store's). The {@code store} section is described at
 * {@link StoreConfig}.
 *
 * <p>Stateless.
 */
public final class EdgeConfigReader {

    private static final Set<String> TOP = new LinkedHashSet<>(List.of("listen", "admin", "upstream", "store",
            "problem", "soft-limit", "anonymous", "plans", "keys", "key-file", "key-overrides", "routes",
            "key-id-secret", "rate-limit-fields", "key-store", "quota-warnings"));
    private static final Set<String> LISTEN = new LinkedHashSet<>(List.of("host", "port", "idle-timeout",
            "max-header-count", "max-header-bytes", "max-request-line-bytes", "drain-bound-bytes", "transport",
            "io-threads", "request-head-timeout", "body-idle-timeout", "max-connections-per-ip", "max-connections",
            "min-body-rate", "min-body-rate-window", "write-timeout", "max-upstream-streams-per-connection",
            "trusted-proxies", "tls"));
    private static final Set<String> TLS = new LinkedHashSet<>(List.of("certificate", "private-key"));
    private static final Set<String> ADMIN = new LinkedHashSet<>(List.of("host", "port", "token"));
    private static final Set<String> UPSTREAM = new LinkedHashSet<>(List.of("url", "connect-timeout",
            "response-timeout", "pool-size", "ca-file", "verify-certificate"));
    private static final Set<String> PROBLEM = new LinkedHashSet<>(List.of("base-uri", "types"));
    private static final Set<String> SOFT_LIMIT = Set.of("threshold-percent");
    private static final Set<String> ANONYMOUS = Set.of("plan");
    private static final Set<String> ROUTE = new LinkedHashSet<>(List.of("method", "path", "cost", "criticality",
            "anonymous", "dry-run", "idempotency-required", "handler", "timeout",
            "failure-mode"));
    private static final Set<String> STORE = new LinkedHashSet<>(List.of("url", "replicas", "decision-timeout",
            "failure-mode", "deny-cache", "lease", "key-prefix", "unavailable-retry-after", "require-at-start",
            "concurrency-lease"));
    private static final Set<String> LEASE = new LinkedHashSet<>(List.of("units", "ttl"));
    private static final Set<String> OVERRIDE = new LinkedHashSet<>(List.of("q", "w"));

    /** Every top-level section of an edge configuration, in the order the documentation lists them. */
    public static final Set<String> SECTIONS = sections();

    private static Set<String> sections() {
        Set<String> all = new LinkedHashSet<>(TOP);
        all.addAll(ProtectionConfigReader.SECTIONS);
        return java.util.Collections.unmodifiableSet(all);
    }

    /** The routes of a configuration without {@code routes}: the usage endpoint, then everything. */
    public static final List<Route> DEFAULT_ROUTES = List.of(
            Route.of("GET", "/v1/usage").withHandler(Route.Handler.USAGE));

    private EdgeConfigReader() {
    }

    /**
     * Reads every section of {@code root}, adding each problem to {@code problems}. Returns what
     * could be read; use it only if {@code problems} stays empty.
     *
     * @param source the file it came from, if any (kept for reloads)
     */
    public static EdgeConfig read(ConfigNode root, ConfigProblems problems, Optional<Path> source) {
        LimiterConfig limiter = LimiterConfig.read(root, problems);
        if (!root.isMapping()) {
            return fallback(limiter, source);
        }
        root.rejectUnknownFields(problems, SECTIONS);
        ListenConfig listen = root.get("listen").map(n -> readListen(n, problems)).orElse(ListenConfig.DEFAULT);
        Optional<AdminConfig> admin = root.get("admin").map(n -> readAdmin(n, problems))
                .orElse(Optional.of(AdminConfig.DEFAULT));
        UpstreamConfig upstream = root.get("upstream").map(n -> readUpstream(n, problems))
                .orElse(UpstreamConfig.DEFAULT);
        StoreConfig store = root.get("store").map(n -> readStore(n, problems)).orElse(StoreConfig.MEMORY);
        ProblemConfig problem = root.get("problem").map(n -> readProblem(n, problems)).orElse(ProblemConfig.DEFAULT);
        int softLimit = root.get("soft-limit").map(n -> readSoftLimit(n, problems))
                .orElse(EdgeConfig.DEFAULT_SOFT_LIMIT_PERCENT);
        Plan anonymous = root.get("anonymous").map(n -> readAnonymous(n, limiter.plans(), problems))
                .orElse(EdgeConfig.DEFAULT_ANONYMOUS_PLAN);
        Map<String, KeyBinding> keys = new LinkedHashMap<>(limiter.keys());
        List<PlanSite> sites = new ArrayList<>();
        root.get("plans").ifPresent(plansNode -> plansNode.fields().forEach((name, node) -> {
            Plan plan = limiter.plans().get(name);
            if (plan != null) {
                sites.add(new PlanSite(plan, node.source(), node.line(), node.path()));
            }
        }));
        root.get("key-overrides").ifPresent(n -> readOverrides(n, keys, sites, problems));
        List<Route> routes = root.get("routes").map(n -> readRoutes(n, problems)).orElse(DEFAULT_ROUTES);
        List<Path> files = new ArrayList<>();
        source.ifPresent(files::add);
        root.get("key-file").filter(n -> n.kind() == ConfigNode.Kind.SCALAR && !n.text().isBlank())
                .ifPresent(n -> files.add(n.resolve(n.text())));
        ProtectionConfig protection = ProtectionConfigReader.read(root, upstream.poolSize(), problems);
        if (protection.idempotency().store().equals(Optional.of(IdempotencyConfig.Store.REDIS))
                && !(store instanceof StoreConfig.Redis)) {
            root.get("idempotency").flatMap(n -> n.get("store")).ifPresent(n -> problems.add(n,
                    "redis keeps the records on the store section's Redis: set store: redis://host:6379 too"));
        }
        Optional<String> keyIdSecret = root.get("key-id-secret").flatMap(n -> readKeyIdSecret(n, problems));
        return new EdgeConfig(listen, admin, upstream, store, problem, softLimit, anonymous, limiter.plans(), keys,
                new RouteTable(routes), source, files, sites).withProtection(protection).withKeyIdSecret(keyIdSecret)
                .withRateLimitFields(root.get("rate-limit-fields").flatMap(n -> n.asOnOff(problems)).orElse(true));
    }

    private static EdgeConfig fallback(LimiterConfig limiter, Optional<Path> source) {
        return new EdgeConfig(ListenConfig.DEFAULT, Optional.of(AdminConfig.DEFAULT), UpstreamConfig.DEFAULT,
                StoreConfig.MEMORY, ProblemConfig.DEFAULT, EdgeConfig.DEFAULT_SOFT_LIMIT_PERCENT,
                EdgeConfig.DEFAULT_ANONYMOUS_PLAN, limiter.plans(), limiter.keys(), new RouteTable(DEFAULT_ROUTES),
                source, source.map(List::of).orElse(List.of()));
    }

    // ---- listen / admin -------------------------------------------------------------------------

    private static ListenConfig readListen(ConfigNode node, ConfigProblems problems) {
        ListenConfig d = ListenConfig.DEFAULT;
        if (!node.isMapping()) {
            return node.asHostPort(problems, d.host()).map(hp -> d.withHost(hp.host()).withPort(hp.port()))
                    .orElse(d);
        }
        node.rejectUnknownFields(problems, LISTEN);
        String host = node.get("host").flatMap(n -> n.asText(problems)).orElse(d.host());
        int port = (int) intField(node, "port", 0, 65_535, d.port(), problems);
        Duration idle = node.get("idle-timeout").flatMap(n -> readDuration(n, problems)).orElse(d.idleTimeout());
        int headerCount = (int) intField(node, "max-header-count", 1, 10_000, d.maxHeaderCount(), problems);
        int headerBytes = (int) intField(node, "max-header-bytes", 256, 1 << 20, d.maxHeaderBytes(), problems);
        int lineBytes = (int) intField(node, "max-request-line-bytes", 64, 1 << 20, d.maxRequestLineBytes(), problems);
        long drain = intField(node, "drain-bound-bytes", 0, 1L << 30, d.drainBoundBytes(), problems);
        ListenConfig.Transport transport = node.get("transport")
                .flatMap(n -> n.asEnum(problems, ListenConfig.Transport.class)).orElse(d.transport());
        int threads = (int) intField(node, "io-threads", 0, 1024, d.ioThreads(), problems);
        Duration head = positive(node, "request-head-timeout", d.requestHeadTimeout(), problems);
        Duration bodyIdle = positive(node, "body-idle-timeout", d.bodyIdleTimeout(), problems);
        int perIp = (int) intField(node, "max-connections-per-ip", 0, 1_000_000, d.maxConnectionsPerIp(), problems);
        int maxConnections = node.get("max-connections").filter(n -> !n.text().strip().equalsIgnoreCase("auto"))
                .map(n -> (int) intField(node, "max-connections", 0, 1_000_000, d.maxConnections(), problems))
                .orElse(d.maxConnections());
        long minRate = intField(node, "min-body-rate", 0, 1L << 30, d.minBodyRateBytesPerSecond(), problems);
        Duration rateWindow = positive(node, "min-body-rate-window", d.minBodyRateWindow(), problems);
        Duration writeTimeout = positive(node, "write-timeout", d.writeTimeout(), problems);
        int streams = (int) intField(node, "max-upstream-streams-per-connection", 1, 100_000,
                d.maxUpstreamStreamsPerConnection(), problems);
        TrustedProxies trusted = node.get("trusted-proxies").map(n -> readTrustedProxies(n, problems))
                .orElse(d.trustedProxies());
        Optional<TlsConfig> tls = node.get("tls").flatMap(n -> readTls(n, problems));
        return new ListenConfig(host, port, idle, headerCount, headerBytes, lineBytes, drain, transport, threads, head,
                bodyIdle, perIp, maxConnections, minRate, rateWindow, writeTimeout, streams, trusted, tls);
    }

    /** {@code {certificate: path, private-key: path}}, both required; relative paths against the file's folder. */
    private static Optional<TlsConfig> readTls(ConfigNode node, ConfigProblems problems) {
        if (!node.expectMapping(problems, "certificate and private-key (PEM files)")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, TLS);
        Optional<Path> certificate = requiredPath(node, "certificate", problems);
        Optional<Path> key = requiredPath(node, "private-key", problems);
        return certificate.isPresent() && key.isPresent()
                ? Optional.of(new TlsConfig(certificate.get(), key.get())) : Optional.empty();
    }

    private static Optional<Path> requiredPath(ConfigNode node, String field, ConfigProblems problems) {
        Optional<ConfigNode> n = node.get(field);
        if (n.isEmpty()) {
            problems.add(node, field + ": required (a PEM file)");
            return Optional.empty();
        }
        return path(n.get(), problems);
    }

    private static Optional<Path> path(ConfigNode n, ConfigProblems problems) {
        Optional<String> text = n.asText(problems);
        if (text.isPresent() && text.get().isBlank()) {
            problems.add(n, "must be a file path");
            return Optional.empty();
        }
        return text.map(t -> n.resolve(t.strip()).normalize());
    }

    /** {@code [10.0.0.0/8, "::1"]}: each entry an address or CIDR block, named at its line when it is not. */
    private static TrustedProxies readTrustedProxies(ConfigNode node, ConfigProblems problems) {
        if (!node.expectSequence(problems, "a list of addresses or CIDR blocks")) {
            return TrustedProxies.NONE;
        }
        List<String> specs = new ArrayList<>();
        for (ConfigNode e : node.elements()) {
            Optional<String> text = e.asText(problems);
            if (text.isEmpty()) {
                continue;
            }
            try {
                TrustedProxies.of(List.of(text.get()));
                specs.add(text.get().strip());
            } catch (IllegalArgumentException ex) {
                problems.add(e, ex.getMessage());
            }
        }
        return TrustedProxies.of(specs);
    }

    private static Duration positive(ConfigNode node, String field, Duration fallback, ConfigProblems problems) {
        return node.get(field).flatMap(n -> readDuration(n, problems).filter(v -> {
            if (v.isZero()) {
                problems.add(n, "must be > 0");
                return false;
            }
            return true;
        })).orElse(fallback);
    }

    private static Optional<AdminConfig> readAdmin(ConfigNode node, ConfigProblems problems) {
        AdminConfig d = AdminConfig.DEFAULT;
        if (node.kind() == ConfigNode.Kind.SCALAR
                && (node.text().equalsIgnoreCase("off") || node.text().equalsIgnoreCase("false"))) {
            return Optional.empty();
        }
        if (!node.isMapping()) {
            return Optional.of(node.asHostPort(problems, d.host()).map(hp -> new AdminConfig(hp.host(), hp.port()))
                    .orElse(d));
        }
        node.rejectUnknownFields(problems, ADMIN);
        String host = node.get("host").flatMap(n -> n.asText(problems)).orElse(d.host());
        int port = (int) intField(node, "port", 0, 65_535, d.port(), problems);
        Optional<String> token = node.get("token").flatMap(n -> n.asText(problems));
        return Optional.of(new AdminConfig(host, port, token));
    }

    // ---- upstream, store, problem, soft limit ----------------------------------------------------

    private static UpstreamConfig readUpstream(ConfigNode node, ConfigProblems problems) {
        UpstreamConfig d = UpstreamConfig.DEFAULT;
        if (!node.expectMapping(problems, "url, connect-timeout, response-timeout, pool-size")) {
            return d;
        }
        node.rejectUnknownFields(problems, UPSTREAM);
        URI url = d.url();
        Optional<ConfigNode> urlNode = node.get("url");
        if (urlNode.isPresent()) {
            Optional<String> text = urlNode.get().asText(problems);
            if (text.isPresent()) {
                try {
                    URI u = new URI(text.get().strip());
                    UpstreamConfig.checkUrl(u);
                    url = u;
                } catch (URISyntaxException e) {
                    problems.add(urlNode.get(), "not a URL: " + e.getMessage());
                } catch (IllegalArgumentException e) {
                    problems.add(urlNode.get(), e.getMessage().replaceFirst("^url: ", ""));
                }
            }
        }
        Duration connect = node.get("connect-timeout").flatMap(n -> readDuration(n, problems))
                .orElse(d.connectTimeout());
        Duration response = node.get("response-timeout").flatMap(n -> readDuration(n, problems))
                .orElse(d.responseTimeout());
        int pool = (int) intField(node, "pool-size", 1, 100_000, d.poolSize(), problems);
        Optional<Path> caFile = node.get("ca-file").flatMap(n -> path(n, problems));
        boolean verify = node.get("verify-certificate").flatMap(n -> n.asBoolean(problems)).orElse(true);
        if ((caFile.isPresent() || !verify) && !url.getScheme().equalsIgnoreCase("https")) {
            problems.add(node.get("ca-file").or(() -> node.get("verify-certificate")).orElseThrow(),
                    "applies to an https:// url only");
        }
        return new UpstreamConfig(url, connect, response, pool, caFile, verify);
    }

    /** {@code memory}, {@code redis://host:port}, or a mapping: {@code url} and the settings of {@link StoreConfig}. */
    private static StoreConfig readStore(ConfigNode node, ConfigProblems problems) {
        if (!node.isMapping()) {
            Optional<String> text = node.asText(problems);
            if (text.isEmpty()) {
                return StoreConfig.MEMORY;
            }
            String t = text.get().strip();
            if (t.equals("memory")) {
                return StoreConfig.MEMORY;
            }
            String urlProblem = StoreConfig.Redis.urlProblem(t);
            boolean redisUrl = t.toLowerCase(java.util.Locale.ROOT).matches("rediss?(-cluster|-sentinel)?://.+");
            if (urlProblem != null && !t.contains("@") && redisUrl) {
                problems.add(node, urlProblem); // a Redis URL the client would refuse: say why
                return StoreConfig.MEMORY;
            } else if (urlProblem != null) {
                problems.add(node, "must be memory or a redis://, redis-cluster:// or redis-sentinel:// URL, was "
                        + (t.contains("@")
                        ? "a URL with credentials" : "\"" + t + "\""));
                return StoreConfig.MEMORY;
            }
            return StoreConfig.Redis.of(t);
        }
        node.rejectUnknownFields(problems, STORE);
        int before = problems.list().size();
        StoreConfig.Redis d = StoreConfig.Redis.of("redis://127.0.0.1:6379");
        String url = null;
        Optional<ConfigNode> urlNode = node.get("url");
        if (urlNode.isEmpty()) {
            problems.add(node, "url: required (redis://host:6379; or write store: memory)");
        } else {
            Optional<String> text = urlNode.get().asText(problems);
            if (text.isPresent()) {
                String urlProblem = StoreConfig.Redis.urlProblem(text.get().strip());
                if (urlProblem != null) {
                    problems.add(urlNode.get(), urlProblem);
                } else {
                    url = text.get().strip();
                }
            }
        }
        int replicas = (int) intField(node, "replicas", 1, 10_000, d.replicas(), problems);
        Duration timeout = node.get("decision-timeout").flatMap(n -> readDuration(n, problems))
                .orElse(d.decisionTimeout());
        if (timeout.compareTo(Duration.ofSeconds(10)) > 0) {
            problems.add(node.get("decision-timeout").orElseThrow(), "must be at most 10s (a decision waits this "
                    + "long before the failure mode answers), was " + timeout.toMillis() + "ms");
        }
        FailureMode mode = node.get("failure-mode").flatMap(n -> readFailureMode(n, problems))
                .orElse(d.failureMode());
        Duration denyCache = node.get("deny-cache").flatMap(n -> isOff(n) ? Optional.of(Duration.ZERO)
                : readDuration(n, problems)).orElse(d.denyCacheMaxAge());
        Optional<StoreConfig.Lease> lease = node.get("lease").flatMap(n -> readLease(n, problems));
        String prefix = node.get("key-prefix").flatMap(n -> n.asText(problems)).orElse(d.keyPrefix());
        Duration retryAfter = node.get("unavailable-retry-after").flatMap(n -> readDuration(n, problems))
                .orElse(d.unavailableRetryAfter());
        boolean requireAtStart = boolField(node, "require-at-start", problems);
        Duration concurrencyLease = node.get("concurrency-lease").flatMap(n -> readDuration(n, problems))
                .orElse(d.concurrencyLease());
        if (concurrencyLease.compareTo(Duration.ofDays(30)) > 0) {
            problems.add(node.get("concurrency-lease").orElseThrow(), "must be at most 720h (30 days), was "
                    + concurrencyLease.toHours() + "h");
        }
        if (url == null || problems.list().size() != before) {
            return StoreConfig.MEMORY; // not used: the problems refuse the file
        }
        return new StoreConfig.Redis(url, replicas, timeout, mode, denyCache, lease, prefix, retryAfter,
                requireAtStart, concurrencyLease);
    }

    private static Optional<StoreConfig.Lease> readLease(ConfigNode node, ConfigProblems problems) {
        if (isOff(node)) {
            return Optional.empty();
        }
        if (!node.expectMapping(problems, "off, or units and ttl")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, LEASE);
        int before = problems.list().size();
        if (node.get("units").isEmpty()) {
            problems.add(node, "units: required (units charged per lease, >= 2)");
        }
        if (node.get("ttl").isEmpty()) {
            problems.add(node, "ttl: required (how long a lease may be spent, e.g. 1s)");
        }
        long units = intField(node, "units", 2, 1_000_000, 2, problems);
        Duration ttl = node.get("ttl").flatMap(n -> readDuration(n, problems)).orElse(Duration.ofSeconds(1));
        return problems.list().size() != before ? Optional.empty() : Optional.of(new StoreConfig.Lease(units, ttl));
    }

    private static boolean isOff(ConfigNode node) {
        return node.kind() == ConfigNode.Kind.SCALAR
                && (node.text().equalsIgnoreCase("off") || node.text().equalsIgnoreCase("false"));
    }

    private static Optional<FailureMode> readFailureMode(ConfigNode node, ConfigProblems problems) {
        return node.asText(problems).flatMap(t -> switch (t.strip().toLowerCase(Locale.ROOT)) {
            case "fail-open-degraded" -> Optional.of(FailureMode.FAIL_OPEN_DEGRADED);
            case "fail-closed" -> Optional.of(FailureMode.FAIL_CLOSED);
            default -> {
                problems.add(node, "must be fail-open-degraded or fail-closed, was \"" + t + "\"");
                yield Optional.empty();
            }
        });
    }

    private static ProblemConfig readProblem(ConfigNode node, ConfigProblems problems) {
        ProblemConfig d = ProblemConfig.DEFAULT;
        if (!node.expectMapping(problems, "base-uri, types")) {
            return d;
        }
        node.rejectUnknownFields(problems, PROBLEM);
        String base = d.baseUri();
        Optional<ConfigNode> baseNode = node.get("base-uri");
        if (baseNode.isPresent()) {
            Optional<String> text = baseNode.get().asText(problems);
            if (text.isPresent()) {
                try {
                    URI u = new URI(text.get().strip());
                    if (!u.isAbsolute() || u.getRawQuery() != null || u.getRawFragment() != null) {
                        problems.add(baseNode.get(), "must be an absolute URI without query or fragment, was \""
                                + text.get() + "\"");
                    } else {
                        base = text.get().strip();
                    }
                } catch (URISyntaxException e) {
                    problems.add(baseNode.get(), "not a URI: " + e.getMessage());
                }
            }
        }
        ProblemConfig.TypeUris types = node.get("types")
                .flatMap(n -> n.asEnum(problems, ProblemConfig.TypeUris.class)).orElse(d.types());
        return new ProblemConfig(base, types);
    }

    /** {@code key-id-secret}: at least 16 characters (an HMAC key short enough to guess protects nothing). */
    private static Optional<String> readKeyIdSecret(ConfigNode node, ConfigProblems problems) {
        if (node.kind() != ConfigNode.Kind.SCALAR || node.text().length() < 16) {
            problems.add(node, "must be a string of at least 16 characters");
            return Optional.empty();
        }
        return Optional.of(node.text());
    }

    private static int readSoftLimit(ConfigNode node, ConfigProblems problems) {
        if (!node.expectMapping(problems, "threshold-percent")) {
            return EdgeConfig.DEFAULT_SOFT_LIMIT_PERCENT;
        }
        node.rejectUnknownFields(problems, SOFT_LIMIT);
        return (int) intField(node, "threshold-percent", 1, 100, EdgeConfig.DEFAULT_SOFT_LIMIT_PERCENT, problems);
    }

    private static Plan readAnonymous(ConfigNode node, Map<String, Plan> plans, ConfigProblems problems) {
        if (!node.expectMapping(problems, "plan")) {
            return EdgeConfig.DEFAULT_ANONYMOUS_PLAN;
        }
        node.rejectUnknownFields(problems, ANONYMOUS);
        Optional<ConfigNode> planNode = node.get("plan");
        if (planNode.isEmpty()) {
            return EdgeConfig.DEFAULT_ANONYMOUS_PLAN;
        }
        Optional<String> name = planNode.get().asText(problems);
        if (name.isEmpty()) {
            return EdgeConfig.DEFAULT_ANONYMOUS_PLAN;
        }
        Plan plan = plans.get(name.get());
        if (plan == null) {
            problems.add(planNode.get(), "unknown plan \"" + name.get() + "\" (valid plans: "
                    + (plans.isEmpty() ? "none" : String.join(", ", plans.keySet())) + ")");
            return EdgeConfig.DEFAULT_ANONYMOUS_PLAN;
        }
        return plan;
    }

    // ---- per-key overrides -----------------------------------------------------------------------

    private static void readOverrides(ConfigNode node, Map<String, KeyBinding> keys, List<PlanSite> sites,
            ConfigProblems problems) {
        if (!node.expectMapping(problems, "API key to policy overrides")) {
            return;
        }
        Map<String, Plan> derived = new HashMap<>();
        node.fields().forEach((key, policies) -> {
            KeyBinding binding = keys.get(key);
            if (binding == null) {
                problems.add(policies, "unknown key (declare it under keys first)");
                return;
            }
            if (!policies.expectMapping(problems, "policy name to { q, w }")) {
                return;
            }
            Plan plan = binding.plan();
            List<Policy> changed = new ArrayList<>(plan.policies());
            boolean ok = true;
            for (Map.Entry<String, ConfigNode> e : policies.fields().entrySet()) {
                int index = plan.indexOf(e.getKey());
                ConfigNode o = e.getValue();
                if (index < 0) {
                    problems.add(o, "plan " + plan.name() + " has no policy \"" + e.getKey() + "\"");
                    ok = false;
                    continue;
                }
                if (!o.expectMapping(problems, "q and/or w")) {
                    ok = false;
                    continue;
                }
                o.rejectUnknownFields(problems, OVERRIDE);
                Policy p = changed.get(index);
                OptionalLong q = o.get("q").map(n -> n.asLong(problems, 1, Long.MAX_VALUE))
                        .orElse(OptionalLong.empty());
                OptionalLong w = o.get("w").map(n -> n.asLong(problems, 1, BurstPolicy.MAX_WINDOW_SECONDS))
                        .orElse(OptionalLong.empty());
                if ((o.get("q").isPresent() && q.isEmpty()) || (o.get("w").isPresent() && w.isEmpty())) {
                    ok = false;
                    continue;
                }
                try {
                    changed.set(index, switch (p) {
                        case BurstPolicy b -> new BurstPolicy(b.name(), q.orElse(b.quota()),
                                w.orElse(b.windowSeconds()), b.unit(), b.partitionKey());
                        case QuotaPolicy qp -> {
                            if (w.isPresent()) {
                                throw new IllegalArgumentException("w: a quota policy's window is its calendar "
                                        + "window; override q only");
                            }
                            yield new QuotaPolicy(qp.name(), q.orElse(qp.quota()), qp.window(), qp.unit(),
                                    qp.partitionKey());
                        }
                        case ConcurrencyPolicy c -> {
                            if (w.isPresent()) {
                                throw new IllegalArgumentException("w: a concurrency policy has no window; "
                                        + "override q only");
                            }
                            yield new ConcurrencyPolicy(c.name(), q.orElse(c.quota()), c.partitionKey());
                        }
                    });
                } catch (IllegalArgumentException ex) {
                    problems.add(o, ex.getMessage());
                    ok = false;
                }
            }
            if (ok) {
                Plan p = Plan.of(plan.name(), changed);
                // keys with equal overrides share one Plan object (one pre-serialised policy line)
                Plan shared = derived.computeIfAbsent(p.name() + "\u0000" + p.policies(), k -> p);
                keys.put(key, new KeyBinding(key, shared, binding.renewalDay()));
                sites.add(new PlanSite(shared, policies.source(), policies.line(), policies.path()));
            }
        });
    }

    // ---- routes ----------------------------------------------------------------------------------

    private static List<Route> readRoutes(ConfigNode node, ConfigProblems problems) {
        if (!node.expectSequence(problems, "of routes")) {
            return DEFAULT_ROUTES;
        }
        List<Route> routes = new ArrayList<>();
        Map<String, ConfigNode> seen = new HashMap<>();
        for (ConfigNode r : node.elements()) {
            Optional<Route> route = readRoute(r, problems);
            if (route.isEmpty()) {
                continue;
            }
            ConfigNode first = seen.putIfAbsent(route.get().id(), r);
            if (first != null) {
                problems.add(r, "duplicate route " + route.get().id() + " (first at line " + first.line() + ")");
                continue;
            }
            routes.add(route.get());
        }
        return routes;
    }

    private static Optional<Route> readRoute(ConfigNode node, ConfigProblems problems) {
        if (!node.expectMapping(problems, "a route: method, path, cost, ...")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, ROUTE);
        int before = problems.list().size();
        String method = node.get("method").flatMap(n -> n.asText(problems)).orElse(Route.ANY_METHOD);
        String methodProblem = Route.methodProblem(method);
        if (methodProblem != null) {
            problems.add(node.get("method").orElse(node), methodProblem);
        }
        Optional<ConfigNode> pathNode = node.get("path");
        PathPattern path = null;
        if (pathNode.isEmpty()) {
            problems.add(node, "path: required");
        } else {
            Optional<String> text = pathNode.get().asText(problems);
            if (text.isPresent()) {
                try {
                    path = PathPattern.compile(text.get());
                } catch (IllegalArgumentException e) {
                    problems.add(pathNode.get(), e.getMessage());
                }
            }
        }
        long cost = intField(node, "cost", 0, Long.MAX_VALUE, 1, problems);
        Criticality criticality = node.get("criticality").flatMap(n -> n.asText(problems).flatMap(t -> {
            Optional<Criticality> c = Criticality.parse(t);
            if (c.isEmpty()) {
                problems.add(n, "must be CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE, was \"" + t + "\"");
            }
            return c;
        })).orElse(Criticality.CRITICAL);
        boolean anonymous = boolField(node, "anonymous", problems);
        boolean dryRun = boolField(node, "dry-run", problems);
        boolean idempotency = boolField(node, "idempotency-required", problems);
        Optional<Duration> timeout = node.get("timeout").flatMap(n -> readDuration(n, problems));
        Route.Handler handler = node.get("handler").flatMap(n -> n.asEnum(problems, Route.Handler.class))
                .orElse(Route.Handler.PROXY);
        Optional<FailureMode> failureMode = node.get("failure-mode").flatMap(n -> readFailureMode(n, problems));
        if (handler == Route.Handler.USAGE && anonymous) {
            problems.add(node.get("anonymous").orElse(node), "a usage route reports a key's limits: it cannot be "
                    + "anonymous");
        }
        if (problems.list().size() != before || path == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Route(method, path, cost, criticality, anonymous, dryRun, idempotency, handler,
                    timeout, failureMode));
        } catch (IllegalArgumentException e) {
            problems.add(node.get("method").orElse(node), e.getMessage().replaceFirst("^method: ", ""));
            return Optional.empty();
        }
    }

    // ---- scalars ---------------------------------------------------------------------------------

    /**
     * An integer field, {@code dflt} when absent: a {@code -bytes} field reads sizes ({@code 16384},
     * {@code 16KiB}), a {@code -percent} field whole percentages ({@code 20}, {@code 20%}); a problem
     * and {@code dflt} when malformed or outside {@code [min, max]}.
     */
    static long intField(ConfigNode node, String field, long min, long max, long dflt, ConfigProblems problems) {
        Optional<ConfigNode> n = node.get(field);
        if (n.isEmpty()) {
            return dflt;
        }
        if (field.endsWith("-bytes")) {
            return n.get().asBytes(problems, min, max).orElse(dflt);
        }
        if (field.endsWith("-percent")) {
            return n.get().asPercent(problems, min, max).orElse(dflt);
        }
        OptionalLong v = n.get().asLong(problems);
        if (v.isEmpty()) {
            return dflt;
        }
        if (v.getAsLong() < min || v.getAsLong() > max) {
            problems.add(n.get(), (max == Long.MAX_VALUE ? "must be >= " + min : "must be in " + min + ".." + max)
                    + ", was " + v.getAsLong());
            return dflt;
        }
        return v.getAsLong();
    }

    private static boolean boolField(ConfigNode node, String field, ConfigProblems problems) {
        return node.get(field).flatMap(n -> n.asBoolean(problems)).orElse(false);
    }

    /**
     * A duration in the shared grammar ({@code 250ms}, {@code 1.5s}, {@code 5m}, {@code 2h}, {@code 3d}),
     * greater than zero; a problem (with a hint for a near miss) and empty otherwise.
     */
    static Optional<Duration> readDuration(ConfigNode node, ConfigProblems problems) {
        return node.asDuration(problems, Duration.ofNanos(1), Duration.ofDays(10_000));
    }
}
