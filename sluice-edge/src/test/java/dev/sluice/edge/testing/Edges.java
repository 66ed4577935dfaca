package dev.sluice.edge.testing;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A running edge for a test: configuration text (with ports 0 and the test upstream's URL filled
 * in), a fake clock, a recording soft-limit sink, and a JDK HTTP/1.1 client aimed at it.
 */
public final class Edges implements AutoCloseable {

    /** The Free plan of SPEC §2.1 and a few keys; routes as in the Shiplane example. */
    public static final String SHIPLANE = """
            problem: { base-uri: https://docs.shiplane.example }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
              pro:
                policies:
                  - { name: burst, kind: burst, q: 200, w: 2 }
                  - { name: daily, kind: quota, q: 1000000, window: daily }
            keys:
              sk_test_free_1: free
              sk_test_free_2: free
              sk_test_pro_1: pro
            routes:
              - { method: POST, path: /v1/labels, criticality: CRITICAL }
              - { method: POST, path: "/v1/labels:batch", cost: 10 }
              - { method: POST, path: "/v1/labels:huge", cost: 30 }
              - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
              - { method: GET, path: /v1/dry, dry-run: true }
              - { method: POST, path: /v1/login, anonymous: true }
              - { method: GET, path: /v1/usage, handler: usage }
            """;

    public final ManualTimeSource time;
    public final EdgeServer server;
    private final List<QuotaWarning> warnings;
    private final HttpClient client;

    private Edges(ManualTimeSource time, EdgeServer server, List<QuotaWarning> warnings) {
        this.time = time;
        this.server = server;
        this.warnings = warnings;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** An edge on {@code yaml} in front of {@code upstream}, clock at {@code now}. */
    public static Edges start(String yaml, TestUpstream upstream, String now) {
        return start(EdgeConfig.parse("test.yaml", yaml), upstream.url(), ManualTimeSource.at(now));
    }

    /** An edge on {@code config} in front of {@code upstreamUrl}. */
    public static Edges start(EdgeConfig config, URI upstreamUrl, ManualTimeSource time) {
        return start(config, upstreamUrl, time, EdgeOptions.defaults());
    }

    /**
     * An edge on {@code config} in front of {@code upstreamUrl}, wired by {@code options} (its clock and
     * sink are replaced by the test's).
     */
    public static Edges start(EdgeConfig config, URI upstreamUrl, ManualTimeSource time, EdgeOptions options) {
        List<QuotaWarning> sink = new CopyOnWriteArrayList<>();
        EdgeConfig c = config.withListen(config.listen().withHost("127.0.0.1").withPort(0)).withAdminPort(0)
                .withUpstreamUrl(upstreamUrl);
        EdgeServer server = EdgeServer.start(c, options.withTime(time).withQuotaWarningSink(sink::add));
        return new Edges(time, server, sink);
    }

    /** The plan the edge applies to {@code key}. */
    public Plan plan(String key) {
        return server.config().binding(key).orElseThrow().plan();
    }

    /**
     * Spends {@code units} of {@code key}'s request quota through the edge's own store, in charges no
     * larger than the burst, advancing the clock by each burst window so the bucket is full again.
     * Sets up "7,690 daily units are spent" without 7,690 HTTP round trips.
     */
    public void spend(String key, long units) {
        Plan plan = plan(key);
        long chunk = Long.MAX_VALUE;
        long window = 1;
        for (Policy p : plan.policies()) {
            if (p instanceof BurstPolicy b) {
                chunk = Math.min(chunk, b.quota());
                window = Math.max(window, b.windowSeconds());
            }
        }
        long left = units;
        while (left > 0) {
            long c = Math.min(chunk, left);
            if (!(server.store().decide(key, plan, Costs.requests(c)) instanceof Allowed)) {
                throw new IllegalStateException("could not spend " + c + " for " + key + " at " + time.now());
            }
            left -= c;
            time.advance(Duration.ofSeconds(window));
        }
    }

    /** Empties {@code key}'s burst at the current instant (the next request is rate limited). */
    public void exhaustBurst(String key) {
        Plan plan = plan(key);
        for (Policy p : plan.policies()) {
            if (p instanceof BurstPolicy b) {
                if (!(server.store().decide(key, plan, Costs.requests(b.quota())) instanceof Allowed)) {
                    throw new IllegalStateException("burst of " + key + " was not full");
                }
                return;
            }
        }
    }

    /** Moves the fake clock forward to {@code instant} (ISO-8601). */
    public void advanceTo(String instant) {
        time.advance(Duration.between(time.now(), Instant.parse(instant)));
    }

    /** The soft-limit events emitted so far. */
    public List<QuotaWarning> quotaWarnings() {
        return List.copyOf(warnings);
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    /** A GET with {@code Authorization: Bearer key} (no header when {@code key} is null). */
    public HttpResponse<String> get(String path, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    /** A POST of {@code body} with the key. */
    public HttpResponse<String> post(String path, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The Prometheus text of the admin port. */
    public String metrics() {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build()).body();
    }

    @Override
    public void close() {
        server.close();
        client.close();
    }
}
