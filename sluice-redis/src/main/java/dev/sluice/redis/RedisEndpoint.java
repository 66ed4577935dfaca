package dev.sluice.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
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
 * One Redis server as Sluice's stores share it: Lettuce connections (thread-safe and pipelined, the
 * Lettuce way), a view of whether Redis answers, and the timer the stores use for their bounded waits
 * (SPEC §3.14).
 *
 * <p><b>Two connections.</b> {@link #commandsIfUp()} is an ordinary connection (every command flushed
 * as it is written): probes, administration, callers' own commands. The stores' script calls go
 * through a second connection with Lettuce's auto-flush off ({@link #scriptCommandsIfUp()}), flushed
 * in batches by {@link #flushScripts()}: a call made on a Netty event loop (Lettuce's own, completing
 * the previous call; or an edge's) is flushed when that loop has run the rest of its current work, with
 * every other call written meanwhile, so many calls in flight share one write and Redis reads them in
 * one go; a call from any other thread is flushed at once. An endpoint over a caller's connection
 * ({@link #wrap}) has only that one, flushed as it is.
 *
 * <p><b>Health.</b> Stores report every command's outcome ({@link #recordSuccess()},
 * {@link #recordFailure(Throwable)}). After {@link RedisEndpointConfig#failureThreshold()} consecutive
 * failures Redis is marked <em>down</em>: {@link #commandsIfUp()} returns {@code null}, stores answer
 * locally, and no command is sent to Redis, so a paused Redis does not accumulate a backlog of stale
 * decisions to replay when it wakes. While down, one probe per
 * {@link RedisEndpointConfig#probeInterval()} (a {@code PING}, or a connection attempt if none was ever
 * made) checks it; the first {@code PONG} marks it <em>up</em> again. Nothing reconnects in a storm:
 * Lettuce reconnects a dropped connection with an exponential back-off capped at
 * {@link RedisEndpointConfig#maxReconnectDelay()}, and commands issued while it is disconnected fail
 * at once instead of queueing.
 *
 * <p>{@link #connect} never blocks and never throws for an unreachable Redis: the endpoint starts
 * down and the probe connects when it can. Thread-safe.
 */
public final class RedisEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisEndpoint.class);

    private final RedisEndpointConfig config;
    private final RedisClient client; // null when wrapping a caller's connection
    private final ClientResources resources; // null when wrapping
    private final RedisURI uri;
    private final AtomicReference<StatefulRedisConnection<String, String>> connection = new AtomicReference<>();
    private volatile RedisClusterAsyncCommands<String, String> commands;
    /** The script connection (auto-flush off) when this endpoint owns its connections, else the given one. */
    private final AtomicReference<StatefulRedisConnection<String, String>> scriptConnection = new AtomicReference<>();
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
    private volatile boolean closed;

    private RedisEndpoint(RedisEndpointConfig config, StatefulRedisConnection<String, String> given) {
        this.config = Objects.requireNonNull(config, "config");
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-redis-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        if (given != null) {
            this.client = null;
            this.resources = null;
            this.uri = null;
            install(given, given);
            markUp("wrapped connection");
            firstAttempt.complete(null);
        } else {
            try {
                this.uri = RedisURI.create(config.uri());
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
            this.client = RedisClient.create(resources);
            client.setOptions(ClientOptions.builder()
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
                    .build());
            connectAsync();
        }
        long every = config.probeInterval().toNanos();
        this.probeTask = timer.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.NANOSECONDS);
    }

    /**
     * An endpoint connecting to {@code config.uri()} in the background; it owns its client and
     * connection and closes them in {@link #close()}.
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
     * The asynchronous commands of the shared connection when Redis is considered up, else
     * {@code null}: then the caller answers without Redis and sends nothing.
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

    /** Whether Redis is considered up. */
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
            markDown(cause);
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

    private void markDown(Throwable cause) {
        if (up.compareAndSet(true, false)) {
            downTransitions.incrementAndGet();
            LOG.warn("redis {} marked down after {} consecutive failures ({}); answering locally, probing every {} ms",
                    describe(), config.failureThreshold(), describeCause(cause), config.probeInterval().toMillis());
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

    private void install(StatefulRedisConnection<String, String> c, StatefulRedisConnection<String, String> scripts) {
        connection.set(c);
        commands = c.async();
        scriptConnection.set(scripts);
        scriptCommands = scripts.async();
    }

    /**
     * The asynchronous commands of the script connection when Redis is considered up, else
     * {@code null}. Its commands are not flushed as they are written: call {@link #flushScripts()}
     * after writing (a command never flushed is never sent).
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
     * thread); on any other thread, at once. Cheap enough to call after every command.
     */
    public void flushScripts() {
        if (client == null) {
            return; // a wrapped connection flushes as it writes
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
        if (client != null) {
            flushNow();
        }
    }

    private void flushNow() {
        StatefulRedisConnection<String, String> c = scriptConnection.get();
        if (c != null) {
            c.flushCommands();
        }
    }

    private void connectAsync() {
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<StatefulRedisConnection<String, String>> main =
                client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
        CompletableFuture<StatefulRedisConnection<String, String>> scripts =
                client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
        main.thenCombine(scripts, (c, s) -> {
            s.setAutoFlushCommands(false);
            return c;
        }).whenComplete((c, e) -> {
            try {
                if (e != null || closed) {
                    if (e != null) {
                        LOG.debug("redis {} connect failed: {}", describe(), describeCause(e));
                    }
                    main.thenAccept(StatefulRedisConnection::closeAsync);
                    scripts.thenAccept(StatefulRedisConnection::closeAsync);
                    return;
                }
                install(c, scripts.join());
                markUp("connected");
            } finally {
                probing.set(false);
                firstAttempt.complete(null);
            }
        });
    }

    private void probe() {
        if (closed || up.get()) {
            return;
        }
        if (connection.get() == null) {
            if (client != null) {
                probes.incrementAndGet();
                connectAsync();
            }
            return;
        }
        if (!probing.compareAndSet(false, true)) {
            return; // the last probe is still out: one at a time
        }
        probes.incrementAndGet();
        CompletableFuture<String> ping;
        try {
            ping = commands.ping().toCompletableFuture();
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
            probing.set(false);
            if (e == null && "PONG".equalsIgnoreCase(pong)) {
                markUp("probe answered");
            }
        });
    }

    private String describe() {
        return uri != null ? uri.getHost() + ":" + uri.getPort() : "(wrapped connection)";
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
            StatefulRedisConnection<String, String> c = connection.getAndSet(null);
            if (c != null) {
                c.close();
            }
            StatefulRedisConnection<String, String> s = scriptConnection.getAndSet(null);
            if (s != null) {
                s.close();
            }
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }
}
