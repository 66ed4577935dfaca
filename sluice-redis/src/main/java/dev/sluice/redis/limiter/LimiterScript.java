package dev.sluice.redis.limiter;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The limiter's Lua script ({@code limiter.lua} beside this class), run by {@code EVALSHA}. When Redis
 * answers {@code NOSCRIPT} (first use, a restart, a {@code SCRIPT FLUSH}, a fail-over to a replica
 * that never saw it) the script is loaded and the call repeated once, transparently; concurrent
 * reloads share one {@code SCRIPT LOAD}. Thread-safe.
 */
final class LimiterScript {

    private final String text;
    private final String sha;
    private final AtomicReference<CompletableFuture<String>> loading = new AtomicReference<>();
    private final LongAdder loads = new LongAdder();

    private LimiterScript(String text) {
        this.text = text;
        this.sha = sha1Hex(text);
    }

    /** The script shipped with this module. */
    static LimiterScript standard() {
        return new LimiterScript(resourceText());
    }

    /** The script with a trailing comment: same behaviour, a SHA Redis has never seen (tests NOSCRIPT). */
    static LimiterScript withComment(String comment) {
        return new LimiterScript(resourceText() + "\n-- " + comment.replace('\n', ' ') + "\n");
    }

    String sha() {
        return sha;
    }

    /** How many times the script was loaded into Redis by this instance. */
    long loads() {
        return loads.sum();
    }

    /**
     * Runs the script; completes with its reply (a list of {@link Long}) or exceptionally with
     * Lettuce's exception. Completes on Lettuce's I/O thread.
     */
    CompletableFuture<List<Object>> run(RedisClusterAsyncCommands<String, String> commands, String[] keys, String[] args) {
        CompletableFuture<List<Object>> first = evalsha(commands, keys, args);
        return first.exceptionallyCompose(e -> {
            if (!(unwrap(e) instanceof RedisNoScriptException)) {
                return CompletableFuture.failedFuture(e);
            }
            return load(commands).thenCompose(loaded -> evalsha(commands, keys, args));
        });
    }

    /** Loads the script ahead of the first decision, so that one does not pay for NOSCRIPT and a load. */
    CompletableFuture<String> preload(RedisClusterAsyncCommands<String, String> commands) {
        return load(commands);
    }

    private CompletableFuture<List<Object>> evalsha(RedisClusterAsyncCommands<String, String> commands, String[] keys,
            String[] args) {
        return commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
    }

    private CompletableFuture<String> load(RedisClusterAsyncCommands<String, String> commands) {
        for (;;) {
            CompletableFuture<String> current = loading.get();
            if (current != null && !current.isDone()) {
                return current;
            }
            CompletableFuture<String> mine = new CompletableFuture<>();
            if (loading.compareAndSet(current, mine)) {
                loads.increment();
                commands.scriptLoad(text).whenComplete((loadedSha, e) -> {
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

    static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static String resourceText() {
        try (InputStream in = LimiterScript.class.getResourceAsStream("limiter.lua")) {
            if (in == null) {
                throw new IllegalStateException("limiter.lua is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }
}
