package dev.sluice.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real Redis the tests use: 127.0.0.1:6379 (override with {@code -Dsluice.redis.uri}). Test classes
 * declare {@code @ExtendWith(RedisTestSupport.class)}: without a reachable Redis they are skipped with
 * the reason printed, except under {@code CI=true}, where they run and fail. Every test writes under a
 * prefix of its own and deletes it afterwards ({@link #deletePrefix}); nothing here flushes the server,
 * which other people share.
 */
public final class RedisTestSupport implements ExecutionCondition {

    public static final String HOST = "127.0.0.1";
    public static final int PORT = 6379;
    public static final String URI = System.getProperty("sluice.redis.uri", "redis://" + HOST + ":" + PORT);

    private static volatile Boolean reachable;
    private static volatile RedisEndpoint sharedEndpoint;
    private static volatile RedisClient adminClient;
    private static volatile StatefulRedisConnection<String, String> admin;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (isReachable()) {
            return ConditionEvaluationResult.enabled("redis answers on " + URI);
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            return ConditionEvaluationResult.enabled("CI=true: redis must be reachable on " + URI + "; the tests will fail");
        }
        String reason = "skipped: no redis answers PING on " + HOST + ":" + PORT + " (start one, or set CI=true to fail instead)";
        System.out.println(context.getDisplayName() + ": " + reason);
        return ConditionEvaluationResult.disabled(reason);
    }

    static synchronized boolean isReachable() {
        if (reachable == null) {
            reachable = ping();
        }
        return reachable;
    }

    private static boolean ping() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, PORT), 500);
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[7];
            int n = in.readNBytes(buf, 0, 7);
            return n == 7 && new String(buf, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** One endpoint shared by every test of the JVM (as an edge shares one connection); never closed. */
    public static synchronized RedisEndpoint endpoint() {
        if (sharedEndpoint == null) {
            sharedEndpoint = RedisEndpoint.connect(URI);
            awaitUp(sharedEndpoint);
        }
        return sharedEndpoint;
    }

    /** Waits (bounded: 10 s) until {@code endpoint} is up. */
    public static void awaitUp(RedisEndpoint endpoint) {
        try {
            endpoint.whenUp().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("redis endpoint did not come up within 10 s", e);
        }
    }

    /** A synchronous connection for the tests' own reads (SCAN, PTTL, ...). */
    public static synchronized RedisCommands<String, String> admin() {
        if (admin == null) {
            adminClient = RedisClient.create(URI);
            admin = adminClient.connect();
            admin.setTimeout(Duration.ofSeconds(10));
        }
        return admin.sync();
    }

    /** A new connection (the caller closes it): e.g. to {@code CLIENT PAUSE} from a second client. */
    public static StatefulRedisConnection<String, String> newConnection() {
        admin();
        return adminClient.connect();
    }

    /** A key prefix no other test or run uses. */
    public static String newPrefix(String what) {
        return "sluice-test:" + what + ":" + UUID.randomUUID() + ":";
    }

    /** Every key under {@code prefix}. */
    public static List<String> keys(String prefix) {
        List<String> keys = new ArrayList<>();
        ScanArgs match = ScanArgs.Builder.matches(globEscape(prefix) + "*").limit(1_000);
        KeyScanCursor<String> cursor = admin().scan(match);
        keys.addAll(cursor.getKeys());
        while (!cursor.isFinished()) {
            cursor = admin().scan(ScanCursor.of(cursor.getCursor()), match);
            keys.addAll(cursor.getKeys());
        }
        return keys;
    }

    /** Deletes every key under {@code prefix}. */
    public static void deletePrefix(String prefix) {
        if (!isReachable()) {
            return;
        }
        List<String> keys = keys(prefix);
        if (!keys.isEmpty()) {
            admin().unlink(keys.toArray(String[]::new));
        }
    }

    private static String globEscape(String s) {
        return s.replaceAll("([\\\\*?\\[\\]{}])", "\\\\$1");
    }

    /**
     * Waits until {@code condition} holds, checking every 10 ms, for at most {@code bound} (Awaitility).
     *
     * @throws org.awaitility.core.ConditionTimeoutException naming {@code what} when the bound passes first
     */
    public static void await(String what, Duration bound, BooleanSupplier condition) {
        Awaitility.await(what).atMost(bound).pollInterval(Duration.ofMillis(10)).until(condition::getAsBoolean);
    }
}
