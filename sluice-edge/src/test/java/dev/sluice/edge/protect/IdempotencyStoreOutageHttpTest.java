package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.IdempotencyRecord;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.InMemoryIdempotencyStore;
import dev.sluice.limiter.idempotency.RecordedResponse;
import dev.sluice.limiter.idempotency.RequestFingerprint;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.time.ManualTimeSource;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.11 when the idempotency store cannot be reached (a shared Redis down), over real HTTP/1.1 on a
 * fake clock: a request with an {@code Idempotency-Key} is not forwarded blindly (it could be carried out
 * twice) but answered 503 {@code idempotency_store_unavailable} with {@code Retry-After}, unless the
 * configuration says to forward; a claim taken before the outage is still answered right on this edge
 * and written to the store when it is back.
 */
@ExtendWith(NoLeaks.class)
class IdempotencyStoreOutageHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String CONFIG = """
            admin: off
            problem: { base-uri: https://docs.shiplane.example }
            %s
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
            keys:
              sk_test_free_1: free
            routes:
              - { method: POST, path: /v1/labels, criticality: CRITICAL, idempotency-required: true }
            """;
    private static final byte[] LABEL = "{\"label_id\":\"lbl_00000001\"}".getBytes(StandardCharsets.UTF_8);

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T12:00:00Z");
    private final FlakyStore store = new FlakyStore(new InMemoryIdempotencyStore(time));
    private TestUpstream upstream;
    private Edges edge;

    private void start(String idempotencySection) {
        upstream = new TestUpstream().replyWith(s -> new Reply(201, Map.of("Content-Type", "application/json"), LABEL));
        edge = Edges.start(EdgeConfig.parse("outage.yaml", CONFIG.formatted(idempotencySection)), upstream.url(), time,
                EdgeOptions.defaults().withIdempotencyStore(store));
    }

    @AfterEach
    void stop() {
        edge.close();
        upstream.close();
    }

    private HttpResponse<String> buy(String idempotencyKey) {
        return edge.send(HttpRequest.newBuilder(edge.uri("/v1/labels")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + FREE).header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"Ada\"}")).build());
    }

    private static IdempotencyKey key(String idempotencyKey) {
        return new IdempotencyKey(FREE, idempotencyKey);
    }

    @Test
    void aStoreThatCannotBeReachedIs503WithRetryAfterAndNothingForwardedOrCharged() {
        start("");
        store.down = true;

        HttpResponse<String> r = buy("order-1");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("\"type\":\"https://docs.shiplane.example/errors/idempotency_store_unavailable\"")
                .contains("\"retry_after_s\":1");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=20;t=0, \"daily\";r=10000;t=0");
        assertThat(upstream.requests()).isZero();

        store.down = false; // back: the same request goes through, once
        assertThat(buy("order-1").statusCode()).isEqualTo(201);
        assertThat(upstream.requests()).isEqualTo(1);
    }

    @Test
    void theSwitchForwardsWithoutARecordAndTheRetryAfterIsConfigurable() {
        start("idempotency: { on-store-unavailable: forward, unavailable-retry-after: 3s }");
        store.down = true;

        HttpResponse<String> r = buy("order-2");

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(upstream.requests()).isEqualTo(1);
        store.down = false;
        assertThat(store.lookup(key("order-2"))).isEmpty(); // forwarded blindly, as asked: nothing recorded
    }

    @Test
    void theConfiguredRetryAfterIsSent() {
        start("idempotency: { unavailable-retry-after: 3s }");
        store.down = true;

        HttpResponse<String> r = buy("order-3");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(r.body()).contains("\"retry_after_s\":3");
    }

    @Test
    void aClaimInFlightWhenTheStoreFailsIsAnsweredHereAndRecordedWhenTheStoreIsBack() throws Exception {
        start("");
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        upstream.replyWith(s -> {
            reached.countDown();
            await(release);
            return new Reply(201, Map.of("Content-Type", "application/json"), LABEL);
        });
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> buy("order-4"));
        assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
        store.down = true; // the claim is in the store; completing it will fail

        HttpResponse<String> duplicate = buy("order-4");
        release.countDown();
        HttpResponse<String> answered = first.get(10, TimeUnit.SECONDS);
        HttpResponse<String> retryWhileDown = buy("order-4");

        assertThat(duplicate.statusCode()).isEqualTo(409); // this edge knows it is in flight
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(answered.statusCode()).isEqualTo(201);
        assertThat(retryWhileDown.statusCode()).isEqualTo(201); // the answer kept here is replayed
        assertThat(retryWhileDown.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retryWhileDown.body()).isEqualTo(answered.body());
        assertThat(store.peek(key("order-4")).map(IdempotencyRecord::inFlight)).hasValue(true);

        store.down = false; // back: the next request through the stage writes the kept answer
        time.advance(Duration.ofSeconds(1));
        assertThat(buy("order-5").statusCode()).isEqualTo(201);
        Optional<IdempotencyRecord> recorded = store.lookup(key("order-4"));
        assertThat(recorded.map(IdempotencyRecord::inFlight)).hasValue(false);
        HttpResponse<String> retryLater = buy("order-4");
        assertThat(retryLater.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requests()).isEqualTo(2); // order-4 once, order-5 once
    }

    @Test
    void aClaimToGiveBackWhenTheStoreFailsIsGivenBackWhenItIsBack() throws Exception {
        start("");
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        upstream.replyWith(s -> {
            reached.countDown();
            await(release);
            return new Reply(503, Map.of("Retry-After", "1"), new byte[0]); // not carried out
        });
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> buy("order-6"));
        assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
        store.down = true;
        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);

        store.down = false;
        upstream.replyWith(s -> new Reply(201, Map.of("Content-Type", "application/json"), LABEL));
        HttpResponse<String> retry = buy("order-6");

        // without the give-back, the marker would answer 409 in flight until its lease (35 s) ran out
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.requests()).isEqualTo(2);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An in-memory store that fails every call while {@link #down} (a shared store that cannot be reached). */
    static final class FlakyStore implements IdempotencyStore {
        private final IdempotencyStore delegate;
        volatile boolean down;

        FlakyStore(IdempotencyStore delegate) {
            this.delegate = delegate;
        }

        private void check() {
            if (down) {
                throw new IllegalStateException("idempotency store unreachable (test)");
            }
        }

        @Override
        public Claim begin(IdempotencyKey key, RequestTarget target, Duration lease) {
            check();
            return delegate.begin(key, target, lease);
        }

        @Override
        public boolean complete(IdempotencyKey key, String token, RequestFingerprint fingerprint,
                RecordedResponse response, Duration retention) {
            check();
            return delegate.complete(key, token, fingerprint, response, retention);
        }

        @Override
        public boolean abandon(IdempotencyKey key, String token) {
            check();
            return delegate.abandon(key, token);
        }

        /** The record, read past the outage (what the store holds). */
        Optional<IdempotencyRecord> peek(IdempotencyKey key) {
            return delegate.lookup(key);
        }

        @Override
        public Optional<IdempotencyRecord> lookup(IdempotencyKey key) {
            check();
            return delegate.lookup(key);
        }
    }
}
