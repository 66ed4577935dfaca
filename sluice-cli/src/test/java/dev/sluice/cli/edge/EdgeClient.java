package dev.sluice.cli.edge;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the edge-on-Redis tests need around an edge: an upstream that answers {@code 200} to everything,
 * and a client that sends one request and keeps what the edge said about limits.
 */
final class EdgeClient {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** One answer of the edge, with its rate-limit fields (empty strings when absent). */
    record Reply(int status, String rateLimit, String policy, String retryAfter, String body, long nanos,
            String replayed) {

        /** {@code r} of {@code policy} in the {@code RateLimit} field, or -1 when absent. */
        long remaining(String policyName) {
            return parameter(rateLimit, policyName, "r");
        }

        /** {@code t} of {@code policy} in the {@code RateLimit} field, or -1 when absent. */
        long resetSeconds(String policyName) {
            return parameter(rateLimit, policyName, "t");
        }

        /** {@code q} of {@code policy} in the {@code RateLimit-Policy} field, or -1 when absent. */
        long quota(String policyName) {
            return parameter(policy, policyName, "q");
        }

        private static long parameter(String field, String policyName, String name) {
            Matcher m = Pattern.compile("\"" + Pattern.quote(policyName) + "\"[^,]*;" + name + "=(\\d+)").matcher(field);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
    }

    /**
     * {@code method path} with {@code Authorization: Bearer key} to the edge on {@code port}. The 10 s
     * request timeout is a hang check: an edge that stops answering fails the test instead of stalling it.
     */
    Reply send(int port, String method, String path, String key) throws IOException, InterruptedException {
        return send(port, method, path, key, null, "");
    }

    /** As above, with an {@code Idempotency-Key} (when not {@code null}) and a body. */
    Reply send(int port, String method, String path, String key, String idempotencyKey, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + key)
                .timeout(Duration.ofSeconds(10));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        HttpRequest request = b.build();
        long start = System.nanoTime();
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        long nanos = System.nanoTime() - start;
        return new Reply(r.statusCode(), r.headers().firstValue("RateLimit").orElse(""),
                r.headers().firstValue("RateLimit-Policy").orElse(""),
                r.headers().firstValue("Retry-After").orElse(""), r.body(), nanos,
                r.headers().firstValue("Idempotent-Replayed").orElse(""));
    }

    /** An upstream on a free loopback port answering {@code 200 {"ok":true,"n":<its count>}} to every request. */
    static final class OkUpstream implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService executor = Executors.newFixedThreadPool(4);
        private final AtomicInteger hits = new AtomicInteger();

        OkUpstream() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
            server.createContext("/", exchange -> {
                int n = hits.incrementAndGet();
                byte[] body = ("{\"ok\":true,\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
                exchange.getRequestBody().readAllBytes();
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.setExecutor(executor);
            server.start();
        }

        /** Requests that reached it. */
        int hits() {
            return hits.get();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
