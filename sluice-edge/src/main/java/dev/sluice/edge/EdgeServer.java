package dev.sluice.edge;

import dev.sluice.edge.config.UpstreamConfig;
import dev.sluice.edge.escalation.RetryLoopEscalation;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.config.KeyBinding;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.InMemoryIdempotencyStore;
import io.micrometer.core.instrument.Gauge;
import java.util.List;

import dev.sluice.edge.config.AdminConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.ProtectedDecider;
import dev.sluice.edge.decision.EdgeRules;
import dev.sluice.edge.internal.KeyAdminApi;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.edge.internal.DashboardEndpoints;
import dev.sluice.edge.dashboard.Dashboard;
import dev.sluice.edge.internal.ConfigWatcher;
import dev.sluice.edge.internal.DateField;
import dev.sluice.edge.internal.EdgeContext;
import dev.sluice.edge.internal.ServerInitializers;
import dev.sluice.edge.internal.ServerTls;
import dev.sluice.edge.internal.Transports;
import dev.sluice.edge.internal.UpstreamPool;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.config.ConfigException;
import dev.sluice.config.HostPort;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Sluice edge (SPEC §3): an HTTP/1.1 and h2c (prior knowledge) reverse proxy on one port, or
 * with {@code listen.tls} an HTTPS one (HTTP/2 or HTTP/1.1 by ALPN, the certificate reloaded when its files
 * change), that decides per API key from the request head, before any body byte is read, and answers with
 * {@code RateLimit-Policy} / {@code RateLimit} on every response to a key, RFC 9457 problems on
 * rejections, and {@code GET /v1/usage} from limiter state; plus an admin port with Prometheus
 * metrics.
 *
 * <pre>{@code
 * EdgeConfig config = EdgeConfig.load(Path.of("examples/shiplane.yaml"))
 *         .withListenPort(0)                                   // any free port
 *         .withUpstreamUrl(URI.create("http://127.0.0.1:8081"));
 * try (EdgeServer edge = EdgeServer.start(config)) {
 *     System.out.println("edge on :" + edge.port() + ", metrics on :" + edge.adminPort());
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Reload</b> (SPEC §3.13a): {@link #reload(EdgeConfig)} or {@link #reloadFromSource()} swap
 * plans, keys, overrides, routes, problem types, soft limit and the anonymous plan at once; requests
 * in progress finish under the rules they started with. {@code listen}, {@code admin},
 * {@code upstream} and {@code store} are fixed at start (a change is logged and ignored). An invalid
 * file, or one with a plan the store refuses ({@link dev.sluice.limiter.spi.LimiterStore#validate}), is
 * refused with {@link ConfigException} and the running configuration stays. With
 * {@link EdgeOptions#withWatchConfig(boolean)} the file (and its key file) is watched.
 *
 * <p>Thread-safe. {@link #close()} stops listening, closes connections and the upstream pool, waits (up to
 * about two seconds) for the event loops to finish, stops the admin API's threads and closes the key source
 * ({@link EdgeOptions#keySource()}: its lookup threads, connections and change feed), so no thread of the
 * edge's is left running.
 */
public final class EdgeServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeServer.class);
    private static final long QUIET_PERIOD_MILLIS = 50;

    private final EventLoopGroup group;
    private final Channel server;
    private final Channel admin;
    private final ChannelGroup connections;
    private final UpstreamPool pool;
    private final EdgeDecider decider;
    private final LimiterStore store;
    private final boolean ownsStore;
    private final PrometheusMeterRegistry registry;
    private volatile ConfigWatcher watcher;
    private final String transport;
    private volatile EdgeConfig config;
    private EdgeConfig lastReloaded; // guarded by this
    // the protection stages; set once in start() before the server is returned
    private CriticalityShedder shedder;
    private RetryLoopEscalation escalation;
    private IdempotencyStore idempotencyStore;
    private boolean ownsIdempotencyStore;
    private ServerTls tls; // null: plain HTTP/1.1 and h2c
    private Dashboard dashboard;
    private KeyAdminApi adminApi; // null: admin port off
    private KeySource keySource; // null: the file's keys only

    private EdgeServer(EventLoopGroup group, Channel server, Channel admin, ChannelGroup connections, UpstreamPool pool,
            EdgeDecider decider, LimiterStore store, boolean ownsStore, PrometheusMeterRegistry registry,
            String transport, EdgeConfig config) {
        this.group = group;
        this.server = server;
        this.admin = admin;
        this.connections = connections;
        this.pool = pool;
        this.decider = decider;
        this.store = store;
        this.ownsStore = ownsStore;
        this.registry = registry;
        this.transport = transport;
        this.config = config;
    }

    /** Starts an edge with {@link EdgeOptions#defaults()}. */
    public static EdgeServer start(EdgeConfig config) {
        return start(config, EdgeOptions.defaults());
    }

    /**
     * Binds the public (and admin) port and returns once the edge accepts connections. The limiter store
     * is {@link EdgeOptions#store()} when given, else an in-memory one; a configuration with a shared
     * store ({@code store: redis://…}) needs the store passed in (the {@code sluice} command builds it:
     * this module does not depend on Redis). Every plan is checked by the store's
     * {@link LimiterStore#validate} first.
     *
     * @throws IllegalStateException when a port cannot be bound, the transport cannot load, the configuration
     *     names a shared store and none was passed, or a TLS file ({@code listen.tls}, {@code upstream.ca-file})
     *     cannot be used (the message names it); nothing is left running then
     * @throws ConfigException when the store refuses a plan (each named by file, line and field)
     */
    public static EdgeServer start(EdgeConfig config, EdgeOptions options) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(options, "options");
        if (options.store().isEmpty() && config.store() instanceof StoreConfig.Redis redis) {
            throw new IllegalStateException("store: " + redis.maskedUrl() + " is a shared Redis store, which this "
                    + "module does not build: pass it with EdgeOptions.withStore(...) (the sluice command does)");
        }
        options.store().ifPresent(s -> config.validatePlans(s::validate));
        Transports transports = Transports.select(config.listen().transport());
        // first: a malformed certificate refuses the start before anything runs
        ServerTls tls = config.listen().tls().map(t -> ServerTls.load(t, config.listen().requestHeadTimeout()))
                .orElse(null);
        int threads = config.listen().ioThreads() > 0 ? config.listen().ioThreads()
                : Runtime.getRuntime().availableProcessors();
        LimiterStore store = options.store().orElseGet(() -> new InMemoryLimiterStore(options.time()));
        boolean ownsStore = options.store().isEmpty();
        requireConcurrencySupport(config, store);
        IdempotencyStore idempotencyStore = options.idempotencyStore()
                .orElseGet(() -> new InMemoryIdempotencyStore(options.time()));
        PrometheusMeterRegistry registry = options.registry()
                .orElseGet(() -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        // resolved here, once, so no DNS lookup ever runs on an event loop
        InetSocketAddress upstreamAddress = new InetSocketAddress(config.upstream().host(), config.upstream().port());
        if (upstreamAddress.isUnresolved()) {
            LOG.warn("upstream host {} does not resolve; requests will get 502", config.upstream().host());
        }
        EventLoopGroup group = transports.newGroup(threads, "sluice-edge");
        ChannelGroup connections = new DefaultChannelGroup("sluice-edge", group.next());
        UpstreamPool pool = null;
        KeyAdminApi adminApi = null;
        try {
            pool = new UpstreamPool(group, transports, config.upstream(), upstreamAddress, threads);
            UpstreamConfig up = config.upstream();
            ProtectedDecider assembled = ProtectedDecider.assemble(config, store, idempotencyStore, options.time(),
                    up.poolSize(), up.connectTimeout().plus(up.responseTimeout()).plusSeconds(5), options.stages(),
                    options.keySource());
            EdgeDecider decider = assembled.decider();
            RetryLoopEscalation escalation = assembled.escalation();
            CriticalityShedder shedder = assembled.shedder();
            Gauge.builder("sluice.edge.shedder.limit", shedder, CriticalityShedder::limit)
                    .description("The shedder's concurrency limit (static or adaptive)").register(registry);
            Gauge.builder("sluice.edge.shedder.in.flight", shedder, CriticalityShedder::inFlight)
                    .description("Requests past the shedder and not yet ended").register(registry);
            options.meterBinders().forEach(b -> b.bindTo(registry));
            DateField dates = new DateField(options.time());
            Dashboard dashboard = new Dashboard(options.time(), registry, config.store());
            EdgeContext context = new EdgeContext(decider, pool, new EdgeMetrics(registry),
                    new SoftLimitNotifier(dashboard.recording(options.quotaWarningSink())), options.time(),
                    config.listen(), dates, dashboard);
            Channel server = bind(new ServerBootstrap().group(group).channel(transports.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(ServerInitializers.edge(context, connections, tls)),
                    config.listen().host(), config.listen().port(), "listen");
            Channel admin = null;
            if (config.admin().isPresent()) {
                AdminConfig a = config.admin().get();
                adminApi = new KeyAdminApi(a, decider, store, options.keyAdministration(), options.time());
                try {
                    admin = bind(new ServerBootstrap().group(group).channel(transports.serverChannel())
                            .option(ChannelOption.SO_REUSEADDR, true)
                            .childHandler(ServerInitializers.admin(registry, dates, connections, adminApi,
                                    new DashboardEndpoints(dashboard, a))), a.host(), a.port(), "admin");
                } catch (RuntimeException e) {
                    server.close().syncUninterruptibly();
                    throw e;
                }
            }
            EdgeServer edge = new EdgeServer(group, server, admin, connections, pool, decider, store, ownsStore,
                    registry, transports.name(), config);
            edge.adminApi = adminApi;
            edge.keySource = options.keySource().orElse(null);
            edge.dashboard = dashboard;
            edge.shedder = shedder;
            edge.escalation = escalation;
            edge.idempotencyStore = idempotencyStore;
            edge.ownsIdempotencyStore = options.idempotencyStore().isEmpty();
            if (tls != null) {
                tls.watch();
                edge.tls = tls;
            }
            if (options.watchConfig() && config.source().isPresent()) {
                edge.watcher = ConfigWatcher.start(config.files(), edge::reloadQuietly);
            }
            LOG.info("edge listening on {} ({}, {}, {} event loops), admin {}, upstream {}", edge.listening(),
                    tls == null ? "http" : "https", transports.name(), threads,
                    edge.adminListening().map(HostPort::toString).orElse("off"), config.upstream().url());
            return edge;
        } catch (RuntimeException e) {
            if (adminApi != null) {
                adminApi.close();
            }
            if (pool != null) {
                pool.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            if (ownsStore) {
                store.close();
            }
            if (options.idempotencyStore().isEmpty()) {
                idempotencyStore.close();
            }
            throw e;
        }
    }

    private static Channel bind(ServerBootstrap b, String host, int port, String what) {
        ChannelFuture f = b.bind(host, port).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new IllegalStateException(what + ": cannot listen on " + host + ":" + port + ": "
                    + f.cause().getMessage(), f.cause());
        }
        return f.channel();
    }

    /** {@code https} when the listener serves TLS ({@code listen.tls}), else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /**
     * The leaf certificate new HTTPS connections are served (it changes when its files do), or empty
     * without {@code listen.tls}.
     */
    public Optional<java.security.cert.X509Certificate> certificate() {
        return Optional.ofNullable(tls).map(ServerTls::certificate);
    }

    /**
     * Loads {@code listen.tls}'s certificate and key again, as a change of the files does.
     *
     * @return whether the new pair is in force (when not, the previous one stays and one warning says why)
     * @throws IllegalStateException without {@code listen.tls}
     */
    public boolean reloadCertificate() {
        if (tls == null) {
            throw new IllegalStateException("the listener has no tls section");
        }
        return tls.reload();
    }

    /** The public port the edge listens on (the bound one when the configuration said 0). */
    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The bound public address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /**
     * The public address as configured, with the bound port: {@code 0.0.0.0:8080}, {@code [::1]:8080}
     * (an IPv6 literal in brackets, RFC 3986 §3.2.2), not the socket's own {@code /[0:0:0:0:0:0:0:0]:8080}.
     * {@code listen} is fixed at start, so a reload does not change it.
     */
    public HostPort listening() {
        return new HostPort(config.listen().host(), port());
    }

    /** The admin address as configured, with the bound port, like {@link #listening()}; empty when off. */
    public Optional<HostPort> adminListening() {
        return admin == null ? Optional.empty()
                : config.admin().map(a -> new HostPort(a.host(), adminPort()));
    }

    /** The admin (metrics) port, or -1 when the admin endpoint is off. */
    public int adminPort() {
        return admin == null ? -1 : ((InetSocketAddress) admin.localAddress()).getPort();
    }

    /** The configuration in force (after reloads). */
    public EdgeConfig config() {
        return config;
    }

    /** The limiter store (the edge's own in-memory store unless one was passed in). */
    public LimiterStore store() {
        return store;
    }

    /** The registry served at {@code GET /metrics} on the admin port. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * What the admin port's dashboard shows ({@code GET /} on the admin port, its data at
     * {@code GET /admin/v1/dashboard}): decision rates per plan and route, the keys refused most often, the
     * store's state, soft-limit warnings. Counts even when the admin port is off.
     */
    public Dashboard dashboard() {
        return dashboard;
    }

    /** {@code epoll} or {@code nio}. */
    public String transport() {
        return transport;
    }

    /**
     * Applies {@code next}'s plans, keys, overrides, routes, problem settings, soft limit and
     * anonymous plan (SPEC §3.13a). Limiter state is kept: a key keeps what it has spent.
     *
     * @return the configuration now in force ({@code next} with the running listen, admin, upstream and
     *     store)
     * @throws ConfigException when the store refuses one of {@code next}'s plans; nothing changes then
     */
    public synchronized EdgeConfig reload(EdgeConfig next) {
        EdgeConfig running = config;
        next.validatePlans(store::validate); // ConfigException: refused, the running rules stay
        EdgeConfig previous = lastReloaded;
        if (previous != null && (!next.listen().equals(previous.listen()) || !next.admin().equals(previous.admin())
                || !next.upstream().equals(previous.upstream()))) {
            LOG.warn("reload: listen, admin and upstream are fixed at start; keeping {} / {} / {} until a restart",
                    running.listen().port(), running.admin().map(AdminConfig::port).orElse(-1),
                    running.upstream().url());
        }
        if (!next.store().equals(running.store())) {
            LOG.warn("reload: the store is fixed at start; keeping {} until a restart", running.store());
        }
        lastReloaded = next;
        EdgeConfig applied = next.withListen(running.listen()).withAdmin(running.admin())
                .withUpstream(running.upstream()).withStore(running.store());
        requireConcurrencySupport(applied, store);
        decider.update(new EdgeRules(applied));
        config = applied;
        LOG.info("reloaded configuration: {}", applied);
        return applied;
    }

    /**
     * Reads the configuration file again and applies it.
     *
     * @throws ConfigException when the file is invalid; the running configuration stays in force
     * @throws IllegalStateException when the configuration did not come from a file
     */
    public EdgeConfig reloadFromSource() {
        Path file = config.source().orElseThrow(() -> new IllegalStateException("the configuration has no file"));
        return reload(EdgeConfig.load(file));
    }

    /** The watcher's and SIGHUP's path: refuse a bad file with its errors logged, keep the old one. */
    private void reloadQuietly() {
        try {
            reloadFromSource();
        } catch (ConfigException e) {
            LOG.error("configuration refused, keeping the running one:\n{}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("configuration reload failed, keeping the running one", e);
        }
    }

    /** Same as {@link #reloadFromSource()} but never throws: errors are logged (SIGHUP handlers). */
    public void reloadFromSourceLogged() {
        reloadQuietly();
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        if (tls != null) {
            tls.close();
        }
        server.close().syncUninterruptibly();
        if (admin != null) {
            admin.close().syncUninterruptibly();
        }
        connections.close().awaitUninterruptibly(2_000);
        pool.close();
        // a short quiet period lets the pipelines of just-closed connections tear down (and release
        // their buffers) on their loops instead of having those tasks rejected by a terminated loop
        group.shutdownGracefully(QUIET_PERIOD_MILLIS, 2_000, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(Duration.ofSeconds(5).toMillis());
        if (adminApi != null) {
            adminApi.close();
        }
        if (keySource != null) {
            keySource.close();
        }
        if (ownsStore) {
            store.close();
        }
        if (ownsIdempotencyStore) {
            idempotencyStore.close();
        }
    }

    /** The criticality shedder (SPEC §3.9): its limit and in-flight count. */
    public CriticalityShedder shedder() {
        return shedder;
    }

    /** The retry-loop escalation stage (SPEC §3.12). */
    public RetryLoopEscalation escalation() {
        return escalation;
    }

    /** Where idempotency records live (SPEC §3.11). */
    public IdempotencyStore idempotencyStore() {
        return idempotencyStore;
    }

    /**
     * A plan with a concurrent-requests policy needs a store that gives slots back
     * ({@link LimiterStore#supportsConcurrencyPolicies()}); refuse such a configuration at start and reload.
     */
    private static void requireConcurrencySupport(EdgeConfig config, LimiterStore store) {
        if (store.supportsConcurrencyPolicies()) {
            return;
        }
        for (Plan p : config.plans().values()) {
            if (p.hasConcurrencyPolicy()) {
                throw new IllegalStateException("plan " + p.name() + " has a concurrent-requests policy, which the "
                        + store.getClass().getSimpleName() + " cannot hold");
            }
        }
        for (KeyBinding b : config.keys().values()) {
            if (b.plan().hasConcurrencyPolicy()) {
                throw new IllegalStateException("key plan " + b.plan().name() + " has a concurrent-requests policy, "
                        + "which the " + store.getClass().getSimpleName() + " cannot hold");
            }
        }
    }

    @Override
    public String toString() {
        return "EdgeServer[" + server.localAddress() + ", " + transport + ", " + config + "]";
    }
}
