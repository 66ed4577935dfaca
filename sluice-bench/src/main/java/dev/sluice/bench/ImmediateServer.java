package dev.sluice.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback HTTP/1.1 server (the JDK's {@code com.sun.net.httpserver}) that reads the request body
 * and answers {@code 200 ok} at once: the far end of the SDK and delivery benchmarks.
 */
public final class ImmediateServer implements AutoCloseable {

    private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);

    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicLong requests = new AtomicLong();

    /** Starts on an ephemeral loopback port with {@code threads} handler threads. */
    public ImmediateServer(int threads) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        executor = Executors.newFixedThreadPool(threads);
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            requests.incrementAndGet();
            exchange.getResponseHeaders().add("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        });
        server.start();
    }

    /** {@code http://127.0.0.1:PORT} + {@code path}. */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** Requests answered so far. */
    public long requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
