package dev.sluice.redis.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A provider API limiting every caller together with a token bucket of {@code q} requests refilled
 * over {@code w} seconds, and saying so the way Sluice's edge does (SPEC §2.1, §2.3): every answer on
 * {@code /limited} carries {@code RateLimit-Policy: "burst";q=..;w=..} and
 * {@code RateLimit: "burst";r=..;t=..}; beyond the limit it answers 429 with {@code Retry-After}
 * (delay-seconds, ceiling). It records every arrival (time, status, the caller's {@code X-Process}).
 * {@code /warm} answers 200 with no limit and records nothing.
 */
final class ProviderStub implements AutoCloseable {

    /** One request as the provider saw it; {@code nanos} is this JVM's {@code System.nanoTime()}. */
    record Arrival(long nanos, int status, String process) {}

    private final int quota;
    private final int windowSeconds;
    private final double perNano;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final List<Arrival> arrivals = new ArrayList<>(); // guarded by this
    private double tokens; // guarded by this
    private long lastNanos; // guarded by this

    ProviderStub(int quota, int windowSeconds) throws IOException {
        this.quota = quota;
        this.windowSeconds = windowSeconds;
        this.perNano = (double) quota / windowSeconds / 1e9;
        reset();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/limited", this::limited);
        server.createContext("/warm", this::warm);
        server.setExecutor(executor);
        server.start();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** A full bucket and no arrivals: a new phase. */
    synchronized void reset() {
        tokens = quota;
        lastNanos = System.nanoTime();
        arrivals.clear();
    }

    synchronized List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    private void limited(HttpExchange ex) throws IOException {
        int status;
        long remaining;
        long resetSeconds;
        long retryAfterSeconds = 0;
        synchronized (this) {
            long now = System.nanoTime();
            tokens = Math.min(quota, tokens + (now - lastNanos) * perNano);
            lastNanos = now;
            if (tokens >= 1) {
                tokens -= 1;
                status = 200;
            } else {
                status = 429;
                retryAfterSeconds = Math.max(1, (long) Math.ceil((1 - tokens) / perNano / 1e9));
            }
            remaining = (long) Math.floor(tokens);
            resetSeconds = (long) Math.ceil((quota - tokens) / perNano / 1e9);
            arrivals.add(new Arrival(now, status, ex.getRequestHeaders().getFirst("X-Process")));
        }
        ex.getResponseHeaders().add("RateLimit-Policy", "\"burst\";q=" + quota + ";w=" + windowSeconds);
        ex.getResponseHeaders().add("RateLimit", "\"burst\";r=" + remaining + ";t=" + resetSeconds);
        if (status == 429) {
            ex.getResponseHeaders().add("Retry-After", Long.toString(retryAfterSeconds));
        }
        ex.sendResponseHeaders(status, -1);
        ex.close();
    }

    private void warm(HttpExchange ex) throws IOException {
        ex.sendResponseHeaders(200, -1);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
