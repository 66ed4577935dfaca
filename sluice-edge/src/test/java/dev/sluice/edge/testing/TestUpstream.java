package dev.sluice.edge.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The API behind the edge in tests: a JDK HTTP server on a free loopback port that counts and
 * records every request it sees (method, path, headers, body length) and answers with a configurable
 * status (default 200 {@code {"ok":true}}).
 */
public final class TestUpstream implements AutoCloseable {

    /** One request as the upstream saw it. */
    public record Seen(String method, String path, Map<String, List<String>> headers, long bodyBytes, int remotePort) {
        public String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    /** What the upstream answers. */
    public record Reply(int status, Map<String, String> headers, byte[] body) {
        public static Reply ok() {
            return new Reply(200, Map.of("Content-Type", "application/json"),
                    "{\"ok\":true}".getBytes(StandardCharsets.UTF_8));
        }

        public static Reply status(int status) {
            return new Reply(status, Map.of("Content-Type", "application/json"),
                    ("{\"status\":" + status + "}").getBytes(StandardCharsets.UTF_8));
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicInteger connectionsSeen = new AtomicInteger();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, Reply> byPath = new ConcurrentHashMap<>();
    private volatile Function<Seen, Reply> replies = s -> Reply.ok();

    public TestUpstream() {
        this(Executors.newFixedThreadPool(4));
    }

    /** An upstream with a virtual thread per request: a request whose body never comes blocks no other. */
    public static TestUpstream unbounded() {
        return new TestUpstream(Executors.newVirtualThreadPerTaskExecutor());
    }

    /** An HTTPS upstream serving {@code tls}'s certificate. */
    public static TestUpstream https(javax.net.ssl.SSLContext tls) {
        return new TestUpstream(Executors.newFixedThreadPool(4), tls);
    }

    private TestUpstream(ExecutorService executor) {
        this(executor, null);
    }

    private TestUpstream(ExecutorService executor, javax.net.ssl.SSLContext tls) {
        this.executor = executor;
        try {
            if (tls == null) {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } else {
                com.sun.net.httpserver.HttpsServer s = com.sun.net.httpserver.HttpsServer.create(
                        new InetSocketAddress("127.0.0.1", 0), 0);
                s.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
                server = s;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            long bytes = 0;
            try (InputStream in = ex.getRequestBody()) {
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    bytes += n;
                }
            }
            Seen s = new Seen(ex.getRequestMethod(), ex.getRequestURI().getRawPath(), Map.copyOf(ex.getRequestHeaders()),
                    bytes, ex.getRemoteAddress().getPort());
            seen.add(s);
            count.incrementAndGet();
            Reply r = byPath.getOrDefault(s.path(), replies.apply(s));
            r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            ex.sendResponseHeaders(r.status(), r.body().length == 0 ? -1 : r.body().length);
            if (r.body().length > 0) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(r.body());
                }
            }
        }
    }

    /** {@code http://127.0.0.1:port} ({@code https://} when it serves TLS). */
    public URI url() {
        return URI.create((server instanceof com.sun.net.httpserver.HttpsServer ? "https" : "http") + "://127.0.0.1:"
                + server.getAddress().getPort());
    }

    /** The port it listens on (127.0.0.1). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** How many requests reached the upstream. */
    public int requests() {
        return count.get();
    }

    /** Every request it saw, in order. */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** Answers every request with {@code f}'s reply. */
    public TestUpstream replyWith(Function<Seen, Reply> f) {
        this.replies = f;
        return this;
    }

    /** Answers requests for {@code path} with {@code reply}. */
    public TestUpstream reply(String path, Reply reply) {
        byPath.put(path, reply);
        return this;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
