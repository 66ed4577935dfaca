package dev.sluice.examples.sdk;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeServer;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The real thing on loopback, as a user runs it: Shiplane ({@code ./sluice upstream}) behind the
 * edge ({@code ./sluice edge --config examples/shiplane.yaml}), both on ephemeral ports. The edge
 * reads {@code examples/shiplane.yaml} itself, plus one plan the quota scenario needs: {@code
 * sk_test_daily_12} on a daily quota of 12 (and the Free plan's burst).
 */
final class ShiplaneBehindTheEdge implements AutoCloseable {

    /** A key whose plan is the Free burst (20 per 2 s) and a daily quota of 12. */
    static final String DAILY_12_KEY = "sk_test_daily_12";

    final ShiplaneServer shiplane;
    final EdgeServer edge;

    private ShiplaneBehindTheEdge(ShiplaneServer shiplane, EdgeServer edge) {
        this.shiplane = shiplane;
        this.edge = edge;
    }

    static ShiplaneBehindTheEdge start() {
        Path repo = Path.of(System.getProperty("sluice.testdata")).getParent();
        ShiplaneServer shiplane;
        try {
            shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            String yaml = Files.readString(repo.resolve("examples/shiplane.yaml"))
                    .replace("\nplans:\n", "\nplans:\n"
                            + "  daily-12:\n"
                            + "    policies:\n"
                            + "      - { name: burst, kind: burst, q: 20, w: 2 }\n"
                            + "      - { name: daily, kind: quota, q: 12, window: daily }\n")
                    .replace("\nkeys:\n", "\nkeys:\n  " + DAILY_12_KEY + ": daily-12\n");
            EdgeConfig base = EdgeConfig.parse("examples/shiplane.yaml (+ daily-12)", yaml);
            EdgeConfig config = base.withListen(base.listen().withHost("127.0.0.1").withPort(0))
                    .withAdmin(Optional.empty()).withUpstreamUrl(shiplane.baseUri());
            return new ShiplaneBehindTheEdge(shiplane, EdgeServer.start(config));
        } catch (IOException | RuntimeException e) {
            shiplane.close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + edge.port() + path);
    }

    HttpRequest.Builder request(String path, String apiKey) {
        return HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + apiKey);
    }

    /**
     * Spends a Free key's burst as "another client" would: 20 GETs at once with a bare JDK client,
     * each answered 200, leaving the key's burst at {@code r=0} (plus what refills meanwhile).
     */
    void spendBurst(String apiKey) {
        try (HttpClient other = HttpClient.newHttpClient()) {
            List<CompletableFuture<HttpResponse<Void>>> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                calls.add(other.sendAsync(request("/v1/quotes", apiKey).GET().build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            for (CompletableFuture<HttpResponse<Void>> c : calls) {
                int status = c.join().statusCode();
                if (status != 200) {
                    throw new IllegalStateException("spending the burst: a call answered " + status);
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            edge.close();
        } finally {
            shiplane.close();
        }
    }
}
