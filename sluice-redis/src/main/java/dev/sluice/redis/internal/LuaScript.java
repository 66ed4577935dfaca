package dev.sluice.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * One of this module's Lua scripts, run by {@code EVALSHA}. When Redis answers {@code NOSCRIPT} (first
 * use, a restart, a {@code SCRIPT FLUSH}, a fail-over to a replica that never saw it) the script is
 * loaded and the call repeated once, transparently; concurrent reloads share one {@code SCRIPT LOAD}.
 * On a Redis Cluster (Lettuce's cluster commands) each node has its own script cache: the load goes to
 * the node that owns the slot of the call's first key, which is where the call runs, and reloads are
 * shared per node. {@link #preload} loads it on every primary.
 * Internal to {@code sluice-redis} (the stores' shared plumbing), not an API. Thread-safe.
 */
public final class LuaScript {

    private final String text;
    private final String sha;
    /** The load in progress or last made, per node id ({@code ""} for a connection to one server). */
    private final ConcurrentHashMap<String, CompletableFuture<String>> loading = new ConcurrentHashMap<>();
    private final LongAdder loads = new LongAdder();

    private LuaScript(String text) {
        this.text = text;
        this.sha = sha1Hex(text);
    }

    /**
     * The script in the class-path resource {@code name}, resolved against {@code anchor}'s package.
     *
     * @throws IllegalStateException if the resource is missing
     */
    public static LuaScript resource(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the class path beside " + anchor.getName());
            }
            return new LuaScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The same script with a trailing comment: same behaviour, a SHA Redis has never seen (tests NOSCRIPT). */
    public LuaScript withComment(String comment) {
        return new LuaScript(text + "\n-- " + Objects.requireNonNull(comment, "comment").replace('\n', ' ') + "\n");
    }

    /**
     * The same script with the one occurrence of {@code target} replaced (tests run a variant beside the
     * original, e.g. with a fast path switched off, and compare the two).
     *
     * @throws IllegalArgumentException if {@code target} does not occur exactly once
     */
    public LuaScript replacing(String target, String replacement) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(replacement, "replacement");
        int at = text.indexOf(target);
        if (at < 0 || text.indexOf(target, at + 1) >= 0) {
            throw new IllegalArgumentException("the script does not contain exactly one '" + target + "'");
        }
        return new LuaScript(text.substring(0, at) + replacement + text.substring(at + target.length()));
    }

    /** The SHA-1 of the text, as {@code EVALSHA} names it. */
    public String sha() {
        return sha;
    }

    /** How many times this instance loaded the script into Redis. */
    public long loads() {
        return loads.sum();
    }

    /**
     * Runs the script; completes with its reply (integers as {@link Long}, bulk strings as
     * {@link String}) or exceptionally with Lettuce's exception, on Lettuce's I/O thread.
     */
    public CompletableFuture<List<Object>> run(RedisClusterAsyncCommands<String, String> commands, String[] keys,
            String[] args) {
        return run(commands, keys, args, NO_FLUSH);
    }

    /**
     * {@link #run(RedisClusterAsyncCommands, String[], String[])} on a connection whose commands are
     * not flushed as they are written: {@code flush} runs after each command this call writes (the
     * {@code EVALSHA}, and on {@code NOSCRIPT} the load and the second {@code EVALSHA}).
     */
    public CompletableFuture<List<Object>> run(RedisClusterAsyncCommands<String, String> commands, String[] keys,
            String[] args, Runnable flush) {
        return evalsha(commands, keys, args, flush).exceptionallyCompose(e -> {
            if (!(unwrap(e) instanceof RedisNoScriptException)) {
                return CompletableFuture.failedFuture(e);
            }
            return load(commands, keys, flush).thenCompose(loaded -> evalsha(commands, keys, args, flush));
        });
    }

    private static final Runnable NO_FLUSH = () -> {};

    /**
     * Loads the script ahead of the first call, so that call does not pay for NOSCRIPT and a load; on a
     * cluster, on every primary (Lettuce sends {@code SCRIPT LOAD} to each).
     */
    public CompletableFuture<String> preload(RedisClusterAsyncCommands<String, String> commands) {
        return load("", commands, NO_FLUSH);
    }

    private CompletableFuture<List<Object>> evalsha(RedisClusterAsyncCommands<String, String> commands,
            String[] keys, String[] args, Runnable flush) {
        CompletableFuture<List<Object>> reply =
                commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
        flush.run();
        return reply;
    }

    /** Loads the script where a call with {@code keys} runs: on a cluster, the primary of the first key's slot. */
    @SuppressWarnings("deprecation") // getStatefulConnection: the cluster commands' own connection, its slot map
    private CompletableFuture<String> load(RedisClusterAsyncCommands<String, String> commands, String[] keys,
            Runnable flush) {
        if (commands instanceof RedisAdvancedClusterAsyncCommands<String, String> cluster && keys.length > 0) {
            StatefulRedisClusterConnection<String, String> connection = cluster.getStatefulConnection();
            RedisClusterNode node = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(keys[0]));
            if (node != null) {
                return loadOnce(node.getNodeId(), () -> connection
                        .getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                        .thenCompose(c -> c.async().scriptLoad(text).toCompletableFuture()));
            }
        }
        return load("", commands, flush);
    }

    private CompletableFuture<String> load(String where, RedisClusterAsyncCommands<String, String> commands,
            Runnable flush) {
        return loadOnce(where, () -> {
            CompletableFuture<String> sent = commands.scriptLoad(text).toCompletableFuture();
            flush.run();
            return sent;
        });
    }

    /** One {@code SCRIPT LOAD} at a time per node: a call that finds one in progress waits for it. */
    private CompletableFuture<String> loadOnce(String where, Supplier<CompletableFuture<String>> send) {
        for (;;) {
            CompletableFuture<String> current = loading.get(where);
            if (current != null && !current.isDone()) {
                return current;
            }
            CompletableFuture<String> mine = new CompletableFuture<>();
            boolean won = current == null ? loading.putIfAbsent(where, mine) == null
                    : loading.replace(where, current, mine);
            if (won) {
                loads.increment();
                CompletableFuture<String> sent;
                try {
                    sent = send.get();
                } catch (RuntimeException e) {
                    mine.completeExceptionally(e);
                    return mine;
                }
                sent.whenComplete((loadedSha, e) -> {
                    if (e != null) {
                        mine.completeExceptionally(e);
                    } else if (!sha.equals(loadedSha)) {
                        mine.completeExceptionally(new IllegalStateException(
                                "SCRIPT LOAD returned " + loadedSha + ", expected " + sha));
                    } else {
                        mine.complete(loadedSha);
                    }
                });
                return mine;
            }
        }
    }

    /** {@code e} without its {@link CompletionException} wrappers. */
    public static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static String sha1Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }
}
