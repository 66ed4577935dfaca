package dev.sluice.examples.adapters;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The real Sluice edge on loopback in front of a real Shiplane, for the client adapters' tests
 * ({@code sluice-okhttp}, {@code sluice-httpclient5}, the Spring starter): the edge's configuration is
 * {@link #CONFIG}, and a first decision stage records every request the edge identified, so a test
 * sees what the server saw (how many attempts per call, with which Idempotency-Key).
 */
public final class ShiplaneBehindEdge implements AutoCloseable {

    /**
     * Three plans of one key each: {@code sk_tight} may send 1 request a second (Retry-After 1 when
     * refused), {@code sk_spent} 1 request a day, {@code sk_roomy} 100 a second.
     */
    public static final String CONFIG = """
            listen: 127.0.0.1:0
            upstream:
              url: http://127.0.0.1:1
            store: memory
            problem:
              base-uri: https://docs.shiplane.example
            plans:
              tight:
                policies:
                  - { name: burst, kind: burst, q: 1, w: 1 }
              spent:
                policies:
                  - { name: burst, kind: burst, q: 100, w: 1 }
                  - { name: daily, kind: quota, q: 1, window: daily }
              roomy:
                policies:
                  - { name: burst, kind: burst, q: 100, w: 1 }
            keys:
              sk_tight: tight
              sk_spent: spent
              sk_roomy: roomy
            routes:
              - { method: POST, path: /v1/labels, idempotency-required: true }
              - { method: GET, path: /v1/quotes }
            """;

    /** One request as the edge saw it. */
    public record Seen(String method, String path, String apiKey, String idempotencyKey) {
    }

    private final ShiplaneServer shiplane;
    private final EdgeServer edge;
    private final ConcurrentLinkedQueue<Seen> seen;

    private ShiplaneBehindEdge(ShiplaneServer shiplane, EdgeServer edge, ConcurrentLinkedQueue<Seen> seen) {
        this.shiplane = shiplane;
        this.edge = edge;
        this.seen = seen;
    }

    /** Starts Shiplane (1 ms answers) and the edge with {@link #CONFIG}, both on free loopback ports. */
    public static ShiplaneBehindEdge start() throws IOException {
        ShiplaneServer shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0)
                .withLatency(Duration.ofMillis(1), Duration.ZERO));
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        EdgeStage recorder = (request, chain) -> {
            seen.add(seen(request));
            return chain.proceed(request);
        };
        try {
            EdgeConfig config = EdgeConfig.parse("adapters.yaml", CONFIG).withAdmin(Optional.empty())
                    .withUpstreamUrl(shiplane.baseUri());
            EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withStages(List.of(recorder)));
            return new ShiplaneBehindEdge(shiplane, edge, seen);
        } catch (RuntimeException e) {
            shiplane.close();
            throw e;
        }
    }

    private static Seen seen(EdgeRequest request) {
        String key = request.caller() instanceof Caller.ApiKey k ? k.binding().key() : null;
        List<String> idempotency = request.head().idempotencyKey();
        return new Seen(request.head().method(), request.head().path(), key,
                idempotency.isEmpty() ? null : idempotency.get(0));
    }

    /** {@code http://127.0.0.1:<edge port>} + {@code path}. */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + edge.port() + path);
    }

    public ShiplaneServer shiplane() {
        return shiplane;
    }

    /** Every identified request the edge received so far, in arrival order. */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The requests the edge received with {@code apiKey}. */
    public List<Seen> seenWith(String apiKey) {
        return seen.stream().filter(s -> apiKey.equals(s.apiKey())).toList();
    }

    @Override
    public void close() {
        edge.close();
        shiplane.close();
    }
}
