package dev.sluice.redis;

import dev.sluice.redis.internal.RedisFailures;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis that Sluice's stores share: one server, a Redis Cluster or a Sentinel-watched primary
 * ({@link RedisUrl}), with Lettuce connections (thread-safe and pipelined, the Lettuce way), a view of
 * whether Redis answers usably, and the timer the stores use for their bounded waits (SPEC §3.14).
 *
 * <p><b>Two connections.</b> {@link #commandsIfUp()} is an ordinary connection (every command flushed
 * as it is written): probes, administration, callers' own commands. The stores' script calls go
 * through a second connection ({@link #scriptCommandsIfUp()}). On one server
 * its auto-flush is off and it is flushed in batches by {@link #flushScripts()}: a call made on a Netty
 * event loop (Lettuce's own, completing the previous call; or an edge's) is flushed when that loop has
 * run the rest of its current work, with every other call written meanwhile, so many calls in flight
 * share one write and Redis reads them in one go; a call from any other thread is flushed at once. On a
 * cluster and through Sentinel each command is flushed as it is written (Lettuce opens a node's
 * connection when a command first needs it, or after a fail-over, and a batch flushed before that
 * connection exists would not be sent). An endpoint
 * over a caller's connection ({@link #wrap}) has only that one, flushed as it is.
 *
 * <p><b>Cluster.</b> A {@code redis-cluster://} URL connects with Lettuce's {@code RedisClusterClient}:
 * each command goes to the node that owns its key's slot, {@code MOVED} and {@code ASK} are followed,
 * and the slot map is refreshed when a redirect, a reconnect or a failed node says it changed (and every
 * 30 s). Every store keeps the keys of one script call in one slot (hash tags), so each call runs on
 * one node.
 *
 * <p><b>Sentinel.</b> A {@code redis-sentinel://…#master} URL connects with Lettuce's master/replica
 * connection: the Sentinels name the primary, and when they fail it over ({@code +switch-master}) commands
 * go to the new primary. Commands in flight during the switch fail and are answered by the failure mode.
 *
 * <p><b>Health.</b> Stores report every command's outcome ({@link #recordSuccess()},
 * {@link #recordFailure(Throwable)} for an outage, {@link #recordError(Throwable)} for a reply that is an
 * error). After {@link RedisEndpointConfig#failureThreshold()} consecutive failures or errors Redis is
 * marked <em>down</em>: {@link #commandsIfUp()} returns {@code null}, stores answer locally, and no
 * command is sent to Redis, so a paused Redis does not accumulate a backlog of stale decisions to replay
 * when it wakes. While down, one probe per {@link RedisEndpointConfig#probeInterval()} (a {@code PING},
 * or a connection attempt if none was ever made; on a cluster, the slot map refreshed and
 * {@code CLUSTER INFO} from every primary) checks it; the first {@code PONG} (on a cluster: every primary
 * saying {@code cluster_state:ok}) marks it <em>up</em> again.
 * A Redis marked down for answering errors ({@code MOVED}, {@code CROSSSLOT}, {@code NOSCRIPT} after a
 * load, a script error) is not trusted on a {@code PONG} alone: the probe also checks its
 * deployment (below), and waits twice as long after each such fall within a minute of the last (up to
 * 30 s), so a Redis that answers every call with an error is reported down, not flapping. Nothing
 * reconnects in a storm: Lettuce reconnects a dropped connection with an exponential back-off capped at
 * {@link RedisEndpointConfig#maxReconnectDelay()}, and commands issued while it is disconnected fail at
 * once instead of queueing.
 *
 * <p><b>Deployment check.</b> Each connection (and each probe after errors) checks that Redis is
 * deployed as the URL says: a {@code redis://} or sentinel URL must not reach a cluster node
 * ({@code INFO cluster}: {@code cluster_enabled:0}); a {@code redis-cluster://} URL must reach cluster
 * nodes; a sentinel must know the URL's master. A mismatch is a {@link #topologyProblem()}: the endpoint
 * stays down and checks again every 5 s. Found by the first connection, it is what the stores'
 * {@code open} methods throw as a {@link RedisTopologyException} (logged at DEBUG only, so a refused
 * start says it once); found later, it is logged as one WARN line, repeated at most once a minute.
 *
 * <p>{@link #connect} never blocks and never throws for an unreachable Redis: the endpoint starts
 * down and the probe connects when it can. Thread-safe.
 */
public final class RedisEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisEndpoint.class);
    /** How often a connection is re-tried, and its deployment re-checked, while the deployment is wrong. */
    private static final long TOPOLOGY_RECHECK_NANOS = 5_000_000_000L;
    /** How often the line about a wrong deployment is repeated. */
    private static final long TOPOLOGY_LOG_EVERY_NANOS = 60_000_000_000L;
    /** The longest a probe waits before trusting a Redis marked down for answering errors. */
    private static final long MAX_ERROR_HOLD_NANOS = 30_000_000_000L;
    /** A fall for errors within this long of the last one doubles the hold. */
    private static final long ERROR_STREAK_WINDOW_NANOS = 60_000_000_000L;

    private final RedisEndpointConfig config;
    private final RedisUrl url; // null when wrapping a caller's connection
    private final AbstractRedisClient client; // null when wrapping
    private final ClientResources resources; // null when wrapping
    /** Whether the script connection is flushed in batches (one server: {@code redis://}). */
    private final boolean batched;
    private final AtomicReference<StatefulConnection<String, String>> connection = new AtomicReference<>();
    private volatile RedisClusterAsyncCommands<String, String> commands;
    /** The script connection (auto-flush off when {@link #batched}) when this endpoint owns its connections, else the given one. */
    private final AtomicReference<StatefulConnection<String, String>> scriptConnection = new AtomicReference<>();
    private volatile RedisClusterAsyncCommands<String, String> scriptCommands;
    private final AtomicBoolean flushPending = new AtomicBoolean();
    /** Completes when the first connection attempt has succeeded or failed. */
    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();
    private final Runnable flushTask = () -> {
        flushPending.set(false);
        flushNow();
    };
    private final AtomicBoolean up = new AtomicBoolean();
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicReference<CompletableFuture<Void>> nextUp = new AtomicReference<>(new CompletableFuture<>());
    private final ScheduledThreadPoolExecutor timer;
    private final ScheduledFuture<?> probeTask;
    private final AtomicLong downTransitions = new AtomicLong();
    private final AtomicLong upTransitions = new AtomicLong();
    private final AtomicLong probes = new AtomicLong();
    private volatile String topologyProblem;
    private volatile long nextConnectNanos = System.nanoTime();
    private volatile long lastTopologyLogNanos;
    private volatile String loggedTopologyProblem;
    /** Whether the last fall was for answering errors (the probe then checks the deployment and holds). */
    private volatile boolean downForErrors;
    private volatile long holdUntilNanos;
    private volatile long lastErrorFallNanos = System.nanoTime() - ERROR_STREAK_WINDOW_NANOS;
    private volatile int errorStreak;
    private volatile boolean closed;
    /** Connections of failed attempts still closing: {@link #close()} waits for them before shutting the client. */
    private final List<CompletableFuture<Void>> closing = new java.util.concurrent.CopyOnWriteArrayList<>();

    private RedisEndpoint(RedisEndpointConfig config, StatefulRedisConnection<String, String> given) {
        this.config = Objects.requireNonNull(config, "config");
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-redis-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        if (given != null) {
            this.url = null;
            this.client = null;
            this.resources = null;
            this.batched = false;
            install(given, given);
            markUp("wrapped connection");
            firstAttempt.complete(null);
        } else {
            try {
                this.url = RedisUrl.parse(config.uri());
            } catch (RuntimeException e) {
                timer.shutdownNow();
                throw e;
            }
            this.resources = ClientResources.builder()
                    .ioThreadPoolSize(2)
                    .computationThreadPoolSize(2)
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(10), config.maxReconnectDelay(), 2,
                            TimeUnit.MILLISECONDS))
                    .build();
            ClientOptions options = ClientOptions.builder()
                    .autoReconnect(true)
                    // fail fast while disconnected: a queued decision replayed after a reconnect is stale
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    // at most once: a decision in flight when the connection dropped was answered
                    // locally already; re-sending it after the reconnect would charge it again
                    .replayFilter(command -> true)
                    .requestQueueSize(config.requestQueueSize())
                    .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).keepAlive(true)
                            .build())
                    // a backstop only: stores time their own waits; this frees commands Redis never answers
                    .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(10)))
                    .build();
            if (url.topology() == RedisUrl.Topology.CLUSTER) {
                RedisClusterClient cluster = RedisClusterClient.create(resources, url.nodes());
                cluster.setOptions(clusterOptions(options));
                this.client = cluster;
                this.batched = false;
            } else {
                RedisClient single = RedisClient.create(resources);
                single.setOptions(options);
                this.client = single;
                // a sentinel's primary is reached through Lettuce's master/replica connection, which opens a
                // new connection after a fail-over: like a cluster's, its commands are flushed as written
                this.batched = url.topology() == RedisUrl.Topology.STANDALONE;
            }
            connectAsync();
        }
        long every = config.probeInterval().toNanos();
        this.probeTask = timer.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.NANOSECONDS);
    }

    /**
     * The cluster client's options: {@code options}, plus the slot map refreshed every 30 s and whenever a
     * redirect, a persistent reconnect, an uncovered slot or an unknown node says it changed; at most 3
     * redirects per command.
     */
    @SuppressWarnings("deprecation") // the adaptive triggers: still how Lettuce 7.7 is told to refresh on events
    private static ClusterClientOptions clusterOptions(ClientOptions options) {
        return ClusterClientOptions.builder(options)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(30))
                        .enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.ASK_REDIRECT,
                                RefreshTrigger.PERSISTENT_RECONNECTS, RefreshTrigger.UNCOVERED_SLOT,
                                RefreshTrigger.UNKNOWN_NODE)
                        .build())
                .maxRedirects(3)
                .build();
    }

    /**
     * An endpoint connecting to {@code config.uri()} ({@link RedisUrl}: one server, a cluster or a
     * sentinel's primary) in the background; it owns its client and connections and closes them in
     * {@link #close()}.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     */
    public static RedisEndpoint connect(RedisEndpointConfig config) {
        return new RedisEndpoint(config, null);
    }

    /** {@link #connect(RedisEndpointConfig)} with the defaults of {@link RedisEndpointConfig#of(String)}. */
    public static RedisEndpoint connect(String uri) {
        return connect(RedisEndpointConfig.of(uri));
    }

    /**
     * An endpoint over a connection the caller made and keeps owning ({@link #close()} leaves it open).
     * It is assumed up; the same failure accounting and probing apply.
     */
    public static RedisEndpoint wrap(StatefulRedisConnection<String, String> connection, RedisEndpointConfig config) {
        return new RedisEndpoint(config, Objects.requireNonNull(connection, "connection"));
    }

    /**
     * Waits at most {@code bound} for the first connection attempt of an endpoint that
     * {@link #connect} just made, and throws what it found wrong with the deployment. A Redis that does
     * not answer in time is not an error here: the endpoint stays down and the probe connects later.
     *
     * @throws RedisTopologyException if Redis is deployed otherwise than the URL says (the endpoint is
     *     left open: the caller closes it)
     */
    public void awaitFirstAttempt(Duration bound) {
        try {
            firstAttempt.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // still connecting: down until the probe connects
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String problem = topologyProblem;
        if (problem != null) {
            throw new RedisTopologyException(problem);
        }
    }

    /** How this endpoint's Redis is deployed ({@link RedisUrl.Topology#STANDALONE} for a wrapped connection). */
    public RedisUrl.Topology topology() {
        return url == null ? RedisUrl.Topology.STANDALONE : url.topology();
    }

    /**
     * What is wrong with the deployment Redis was found in, one line (e.g. a {@code redis://} URL that
     * reaches a cluster node), or {@code null}: the endpoint stays down while there is one.
     */
    public String topologyProblem() {
        return topologyProblem;
    }

    /**
     * The asynchronous commands of the shared connection when Redis is considered up, else
     * {@code null}: then the caller answers without Redis and sends nothing. On a cluster they are
     * Lettuce's cluster commands (routed by key slot).
     */
    public RedisClusterAsyncCommands<String, String> commandsIfUp() {
        return up.get() ? commands : null;
    }

    /** The asynchronous commands of the shared connection whatever the health, or {@code null} if none yet. */
    public RedisClusterAsyncCommands<String, String> commandsAnyway() {
        return commands;
    }

    /**
     * Completes when the first connection attempt has ended, connected or not (at once for a wrapped
     * connection). Each TCP connect is bounded by {@link RedisEndpointConfig#connectTimeout()}; what a
     * cold JVM spends loading the client before it is not, so callers bound their wait themselves.
     */
    public CompletionStage<Void> firstConnectAttempt() {
        return firstAttempt;
    }

    /** Whether Redis is considered up: it answers, usably. */
    public boolean isUp() {
        return up.get();
    }

    /** Completes when Redis is next considered up (at once if it is now); for waits with a bound. */
    public CompletionStage<Void> whenUp() {
        CompletableFuture<Void> f = nextUp.get();
        if (up.get()) {
            return CompletableFuture.completedFuture(null);
        }
        return f;
    }

    /**
     * Opens a publish/subscribe connection of its own to this endpoint's Redis, on the same client and
     * threads: to the server of a {@code redis://} URL, to the primary the Sentinels name (found again after
     * a fail-over) or to one node of a cluster (a {@code PUBLISH} reaches the subscribers of every node).
     * Lettuce reconnects it with the endpoint's back-off and subscribes its channels again, which a listener
     * sees as a new {@code subscribed} confirmation. The caller closes it (before {@link #close()}); it is
     * not counted in this endpoint's health.
     *
     * @return the connection, or a stage failed with the connect error (Redis unreachable)
     * @throws IllegalStateException for an endpoint over a caller's connection ({@link #wrap}), which has no
     *     client to connect with, or once closed
     */
    public CompletionStage<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        if (client == null) {
            throw new IllegalStateException("an endpoint over a caller's connection opens no other connection");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (client instanceof RedisClusterClient cluster) {
            return cluster.connectPubSubAsync(StringCodec.UTF8).thenApply(c -> c);
        }
        return ((RedisClient) client).connectPubSubAsync(StringCodec.UTF8, url.nodes().get(0));
    }

    /** The single timer thread stores schedule their bounded waits on; tasks must not block. */
    public ScheduledExecutorService timer() {
        return timer;
    }

    /** A command answered: resets the failure count. Cheap enough to call on every reply. */
    public void recordSuccess() {
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
    }

    /**
     * A command failed for a reason that says Redis is not answering (a timeout, a closed or refused
     * connection, {@code BUSY}, {@code LOADING}): counts towards marking it down.
     */
    public void recordFailure(Throwable cause) {
        if (consecutiveFailures.incrementAndGet() >= config.failureThreshold()) {
            markDown(cause, false);
        }
    }

    /**
     * Redis answered a command with an error that is not an outage ({@code MOVED}, {@code CROSSSLOT},
     * {@code NOSCRIPT} after a load, a script error): it answers, but not usably. Counts towards marking
     * it down like {@link #recordFailure}; once down for this, the probe checks the deployment and holds
     * off before trusting a {@code PONG} (see the class comment).
     */
    public void recordError(Throwable cause) {
        if (consecutiveFailures.incrementAndGet() >= config.failureThreshold()) {
            markDown(cause, true);
        }
    }

    /** How often Redis was marked down, up again, and how many probes were sent. */
    public Stats stats() {
        return new Stats(up.get(), downTransitions.get(), upTransitions.get(), probes.get());
    }

    /**
     * The endpoint's counters.
     *
     * @param up whether Redis is considered up now
     * @param downTransitions times it was marked down
     * @param upTransitions times it came back (or first connected)
     * @param probes probes sent while down
     */
    public record Stats(boolean up, long downTransitions, long upTransitions, long probes) {}

    private void markDown(Throwable cause, boolean forErrors) {
        if (up.compareAndSet(true, false)) {
            downTransitions.incrementAndGet();
            downForErrors = forErrors;
            if (forErrors) {
                long now = System.nanoTime();
                errorStreak = now - lastErrorFallNanos < ERROR_STREAK_WINDOW_NANOS ? Math.min(errorStreak + 1, 16) : 1;
                lastErrorFallNanos = now;
                long hold = Math.min(MAX_ERROR_HOLD_NANOS, config.probeInterval().toNanos() << (errorStreak - 1));
                holdUntilNanos = now + hold;
                LOG.warn("redis {} marked down after {} consecutive error replies ({}); answering locally, "
                                + "checking it again in {} ms",
                        describe(), config.failureThreshold(), describeCause(cause), hold / 1_000_000);
            } else {
                LOG.warn("redis {} marked down after {} consecutive failures ({}); answering locally, probing every {} ms",
                        describe(), config.failureThreshold(), describeCause(cause), config.probeInterval().toMillis());
            }
        }
    }

    private void markUp(String how) {
        consecutiveFailures.set(0);
        if (up.compareAndSet(false, true)) {
            upTransitions.incrementAndGet();
            LOG.info("redis {} is up ({})", describe(), how);
            nextUp.getAndSet(new CompletableFuture<>()).complete(null);
        }
    }

    private void install(StatefulConnection<String, String> c, StatefulConnection<String, String> scripts) {
        connection.set(c);
        commands = async(c);
        scriptConnection.set(scripts);
        scriptCommands = async(scripts);
    }

    private static RedisClusterAsyncCommands<String, String> async(StatefulConnection<String, String> c) {
        if (c instanceof StatefulRedisClusterConnection<String, String> cluster) {
            return cluster.async();
        }
        return ((StatefulRedisConnection<String, String>) c).async();
    }

    /**
     * The asynchronous commands of the script connection when Redis is considered up, else
     * {@code null}. On one server its commands are not flushed as they are written: call
     * {@link #flushScripts()} after writing (a command never flushed is never sent).
     */
    public RedisClusterAsyncCommands<String, String> scriptCommandsIfUp() {
        return up.get() ? scriptCommands : null;
    }

    /** {@link #scriptCommandsIfUp()} whatever the health, or {@code null} if not connected yet. */
    public RedisClusterAsyncCommands<String, String> scriptCommandsAnyway() {
        return scriptCommands;
    }

    /**
     * Sends what was written on the script connection: on a Netty event loop thread, once that loop
     * has run the rest of its current work (one flush for every command written meanwhile, by any
     * thread); on any other thread, at once. Cheap enough to call after every command; nothing to do on
     * a cluster, whose commands are flushed as they are written.
     */
    public void flushScripts() {
        if (!batched) {
            return; // a wrapped connection or a cluster flushes as it writes
        }
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop == null) {
            flushNow();
            return;
        }
        if (flushPending.compareAndSet(false, true)) {
            try {
                loop.execute(flushTask);
            } catch (RejectedExecutionException e) {
                flushPending.set(false);
                flushNow(); // the loop is shutting down
            }
        }
    }

    /**
     * Sends what was written on the script connection now, on this thread. A caller about to block on a
     * reply calls it first: on an event loop, {@link #flushScripts()} waits for that loop's turn to end,
     * which a blocked loop never reaches.
     */
    public void flushScriptsNow() {
        if (batched) {
            flushNow();
        }
    }

    private void flushNow() {
        StatefulConnection<String, String> c = scriptConnection.get();
        if (c != null) {
            c.flushCommands();
        }
    }

    // ------------------------------------------------------------------------------ connecting

    /** Connects once; on a cluster, {@code refresh} first loads the slot map (a connection needs one). */
    @SuppressWarnings("unchecked")
    private CompletableFuture<StatefulConnection<String, String>> open(boolean refresh) {
        if (client instanceof RedisClusterClient cluster) {
            CompletableFuture<Void> slots = refresh ? cluster.refreshPartitionsAsync().toCompletableFuture()
                    : CompletableFuture.completedFuture(null);
            return slots.thenCompose(v -> cluster.connectAsync(StringCodec.UTF8)).thenCompose(c -> {
                // a node's connection is opened when a command first needs it, and a command that finds it
                // still connecting is rejected: open every primary's now
                List<CompletableFuture<?>> nodes = new ArrayList<>();
                for (RedisClusterNode node : c.getPartitions()) {
                    if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                        nodes.add(c.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort()));
                    }
                }
                return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new))
                        .handle((v, e) -> (StatefulConnection<String, String>) c);
            });
        }
        if (url.topology() == RedisUrl.Topology.SENTINEL) {
            // follows the Sentinels' +switch-master: after a fail-over, commands go to the new primary
            return MasterReplica.connectAsync((RedisClient) client, StringCodec.UTF8, url.nodes().get(0))
                    .thenApply(c -> (StatefulConnection<String, String>) c);
        }
        return ((RedisClient) client).connectAsync(StringCodec.UTF8, url.nodes().get(0)).toCompletableFuture()
                .thenApply(c -> (StatefulConnection<String, String>) c);
    }

    private void connectAsync() {
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<StatefulConnection<String, String>> main;
        CompletableFuture<StatefulConnection<String, String>> scripts;
        try {
            main = open(true);
            // a cluster client loads the slot map before its first connect: the second waits for it
            scripts = client instanceof RedisClusterClient ? main.thenCompose(c -> open(false)) : open(false);
        } catch (RuntimeException e) {
            probing.set(false);
            firstAttempt.complete(null);
            LOG.debug("redis {} connect failed: {}", describe(), describeCause(e));
            return;
        }
        main.thenCombine(scripts, (c, s) -> c)
                .thenCompose(c -> deploymentProblem(async(c)))
                .handle((problem, e) -> e == null
                        ? CompletableFuture.completedFuture(problem)
                        : connectFailureProblem(e).thenApply(p -> {
                            if (p == null) {
                                LOG.debug("redis {} connect failed: {}", describe(), describeCause(e));
                            }
                            return p;
                        }))
                .thenCompose(f -> f)
                .whenComplete((problem, e) -> {
                    try {
                        boolean connected = e == null && problem == null && main.isDone() && !main.isCompletedExceptionally()
                                && scripts.isDone() && !scripts.isCompletedExceptionally();
                        if (!connected || closed) {
                            if (problem != null) {
                                topologyFound(problem);
                            }
                            closing.add(main.thenCompose(StatefulConnection::closeAsync));
                            closing.add(scripts.thenCompose(StatefulConnection::closeAsync));
                            closing.removeIf(CompletableFuture::isDone);
                            return;
                        }
                        StatefulConnection<String, String> s = scripts.join();
                        if (batched) {
                            s.setAutoFlushCommands(false);
                        }
                        topologyProblem = null;
                        install(main.join(), s);
                        markUp("connected");
                    } finally {
                        probing.set(false);
                        firstAttempt.complete(null);
                    }
                });
    }

    private void topologyFound(String problem) {
        long now = System.nanoTime();
        nextConnectNanos = now + TOPOLOGY_RECHECK_NANOS;
        topologyProblem = problem;
        if (!firstAttempt.isDone()) {
            // the opener throws it (RedisTopologyException): one line at start, not two
            LOG.debug("redis {}: {}", describe(), problem);
            return;
        }
        if (!problem.equals(loggedTopologyProblem) || now - lastTopologyLogNanos >= TOPOLOGY_LOG_EVERY_NANOS) {
            loggedTopologyProblem = problem;
            lastTopologyLogNanos = now;
            LOG.warn("redis {}: {}; answering without it, checking again every {} s", describe(), problem,
                    TOPOLOGY_RECHECK_NANOS / 1_000_000_000L);
        }
    }

    /**
     * What the connected Redis says against the URL's deployment, or {@code null}: a {@code redis://} or
     * sentinel URL must not reach a cluster node. A cluster connection has proved itself by loading the
     * slot map.
     */
    private CompletableFuture<String> deploymentProblem(RedisClusterAsyncCommands<String, String> c) {
        if (url == null || url.topology() == RedisUrl.Topology.CLUSTER) {
            return CompletableFuture.completedFuture(null);
        }
        return c.info("cluster").toCompletableFuture()
                .orTimeout(config.connectTimeout().toNanos(), TimeUnit.NANOSECONDS)
                .thenApply(info -> {
                    if (info == null || !info.contains("cluster_enabled:1")) {
                        return null;
                    }
                    if (url.topology() == RedisUrl.Topology.SENTINEL) {
                        return url.masked() + " leads to a Redis Cluster node (cluster_enabled:1); Sentinel serves "
                                + "servers with cluster support disabled: write redis-cluster://host:port for a cluster";
                    }
                    RedisURI n = url.nodes().get(0);
                    return url.masked() + " reaches a Redis Cluster node (cluster_enabled:1), which answers MOVED "
                            + "for keys of other nodes: write " + (n.isSsl() ? "rediss" : "redis") + "-cluster://"
                            + n.getHost() + ":" + n.getPort();
                });
    }

    /**
     * Why a connection attempt failed, when the reason is the deployment rather than an outage, or
     * {@code null}: a cluster URL at a server with cluster support disabled; a sentinel that knows no
     * such master, or a server that is not a Sentinel.
     */
    private CompletableFuture<String> connectFailureProblem(Throwable e) {
        if (url == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (url.topology() == RedisUrl.Topology.CLUSTER) {
            String text = RedisFailures.describeChain(e);
            if (text.contains("cluster support disabled")) {
                RedisURI n = url.nodes().get(0);
                return CompletableFuture.completedFuture(url.masked() + " reaches a Redis with cluster support "
                        + "disabled (cluster_enabled:0): write " + (n.isSsl() ? "rediss" : "redis") + "://"
                        + n.getHost() + ":" + n.getPort() + " for one server");
            }
            return CompletableFuture.completedFuture(null);
        }
        if (url.topology() != RedisUrl.Topology.SENTINEL) {
            return CompletableFuture.completedFuture(null);
        }
        RedisURI uri = url.nodes().get(0);
        String master = uri.getSentinelMasterId();
        CompletableFuture<String> result = new CompletableFuture<>();
        ((RedisClient) client).connectSentinelAsync(StringCodec.UTF8, uri).toCompletableFuture()
                .whenComplete((sentinel, connectError) -> {
                    if (connectError != null) {
                        result.complete(null); // no sentinel answers: an outage, probed again
                        return;
                    }
                    sentinel.async().masters().toCompletableFuture()
                            .orTimeout(config.connectTimeout().toNanos(), TimeUnit.NANOSECONDS)
                            .whenComplete((masters, askError) -> {
                                sentinel.closeAsync();
                                if (askError != null) {
                                    String why = describeCause(askError);
                                    result.complete(why.contains("unknown command")
                                            ? url.masked() + ": the server at " + hostsOf(uri)
                                                    + " is not a Sentinel (" + why + ")"
                                            : null);
                                    return;
                                }
                                List<String> names = new ArrayList<>();
                                for (Map<String, String> m : masters) {
                                    names.add(m.get("name"));
                                }
                                result.complete(names.contains(master) ? null
                                        : url.masked() + ": the Sentinel at " + hostsOf(uri) + " knows no master named \""
                                                + master + "\" (it knows " + (names.isEmpty() ? "none" : names) + ")");
                            });
                });
        return result;
    }

    private static String hostsOf(RedisURI sentinelUri) {
        StringBuilder sb = new StringBuilder();
        for (RedisURI s : sentinelUri.getSentinels()) {
            sb.append(sb.isEmpty() ? "" : ",").append(s.getHost()).append(':').append(s.getPort());
        }
        return sb.toString();
    }

    private void probe() {
        if (closed || up.get()) {
            return;
        }
        if (connection.get() == null) {
            if (client != null && System.nanoTime() - nextConnectNanos >= 0) {
                probes.incrementAndGet();
                connectAsync();
            }
            return;
        }
        boolean check = downForErrors;
        if (check && System.nanoTime() - holdUntilNanos < 0) {
            return; // it answered errors: give it time before trusting a PONG
        }
        if (!probing.compareAndSet(false, true)) {
            return; // the last probe is still out: one at a time
        }
        probes.incrementAndGet();
        RedisClusterAsyncCommands<String, String> c = commands;
        CompletableFuture<String> ping;
        try {
            ping = connection.get() instanceof StatefulRedisClusterConnection<String, String> cluster
                    && scriptConnection.get() instanceof StatefulRedisClusterConnection<String, String> scripts
                    ? pingEveryPrimary(cluster, scripts)
                    : c.ping().toCompletableFuture();
        } catch (RuntimeException e) {
            probing.set(false);
            return;
        }
        ScheduledFuture<?> expiry = timer.schedule(() -> {
            if (!ping.isDone()) {
                probing.set(false); // the PING may still be queued in a paused Redis; try again next interval
            }
        }, config.probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        ping.whenComplete((pong, e) -> {
            expiry.cancel(false);
            if (e != null || !"PONG".equalsIgnoreCase(pong)) {
                probing.set(false);
                return;
            }
            if (!check) {
                probing.set(false);
                markUp("probe answered");
                return;
            }
            deploymentProblem(c).whenComplete((problem, checkError) -> {
                probing.set(false);
                if (checkError != null) {
                    return;
                }
                if (problem != null) {
                    topologyFound(problem);
                    holdUntilNanos = nextConnectNanos;
                    return;
                }
                topologyProblem = null;
                markUp("probe answered after error replies");
            });
        });
    }

    /**
     * A cluster's probe: the slot map refreshed (a fail-over may have replaced a primary), then
     * {@code CLUSTER INFO} from every primary over each connection's own link to it (the script
     * connection's are the ones decisions take, and reconnect on their own); {@code "PONG"} when every one
     * says {@code cluster_state:ok} (a restarted node answers {@code PING} before it has rejoined, and
     * {@code CLUSTERDOWN} to commands until then). A plain {@code PING} would go to the node the
     * connection was opened on, which may be the one gone.
     */
    @SafeVarargs
    private CompletableFuture<String> pingEveryPrimary(StatefulRedisClusterConnection<String, String>... connections) {
        return ((RedisClusterClient) client).refreshPartitionsAsync().toCompletableFuture()
                .handle((v, e) -> null) // a failed refresh keeps the last map: ping what it names
                .thenCompose(v -> {
                    List<CompletableFuture<String>> pongs = new ArrayList<>();
                    for (StatefulRedisClusterConnection<String, String> cluster : connections) {
                        for (RedisClusterNode node : cluster.getPartitions()) {
                            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                                pongs.add(cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                                        .thenCompose(n -> n.async().clusterInfo().toCompletableFuture())
                                        .thenApply(info -> info.contains("cluster_state:ok") ? "PONG" : "not ok"));
                            }
                        }
                    }
                    return CompletableFuture.allOf(pongs.toArray(CompletableFuture[]::new)).thenApply(all -> {
                        for (CompletableFuture<String> pong : pongs) {
                            if (!"PONG".equalsIgnoreCase(pong.join())) {
                                return "not every primary is cluster_state:ok";
                            }
                        }
                        return pongs.isEmpty() ? "no primary in the slot map" : "PONG";
                    });
                });
    }

    private String describe() {
        return url != null ? url.hosts() : "(wrapped connection)";
    }

    static String describeCause(Throwable e) {
        if (e == null) {
            return "no cause";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /** Stops probing and closes what this endpoint opened (not a wrapped connection). */
    @Override
    public void close() {
        closed = true;
        probeTask.cancel(false);
        timer.shutdownNow();
        if (client != null) {
            StatefulConnection<String, String> c = connection.getAndSet(null);
            if (c != null) {
                c.close();
            }
            StatefulConnection<String, String> s = scriptConnection.getAndSet(null);
            if (s != null) {
                s.close();
            }
            try {
                CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).get(1, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // closing anyway
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }
}
