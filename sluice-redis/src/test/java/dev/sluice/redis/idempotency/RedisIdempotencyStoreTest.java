package dev.sluice.redis.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.RecordedResponse;
import dev.sluice.limiter.idempotency.RequestFingerprint;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.limiter.spi.StoreUnavailableException;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.internal.HashTags;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the Redis idempotency store adds to the contract: sharing, key TTLs (R16), failure, encoding. */
@ExtendWith(RedisTestSupport.class)
class RedisIdempotencyStoreTest {

    private static final IdempotencyKey KEY = new IdempotencyKey("sk_{odd}%key", "5f1c2b7e-0001");
    private static final RequestTarget POST_LABELS = new RequestTarget("POST", "/v1/labels");
    private static final RequestFingerprint EMPTY_BODY =
            new RequestFingerprint(POST_LABELS, RequestFingerprint.EMPTY_BODY_SHA256);
    private static final Duration LEASE = Duration.ofSeconds(35);
    private static final Duration RETENTION = Duration.ofHours(24); // SPEC §3.11 default

    private final String prefix = RedisTestSupport.newPrefix("idem");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        RedisTestSupport.deletePrefix(prefix);
    }

    private RedisIdempotencyStore replica(RedisEndpoint endpoint) {
        RedisIdempotencyStore store = new RedisIdempotencyStore(endpoint, RedisIdempotencyConfig.builder()
                .keyPrefix(prefix).operationTimeout(Duration.ofSeconds(5)).build());
        toClose.add(store);
        return store;
    }

    private RedisEndpoint newEndpoint(String uri) {
        RedisEndpoint endpoint = RedisEndpoint.connect(uri);
        toClose.add(endpoint);
        return endpoint;
    }

    @Test
    void aRetryOnAnotherReplicaFindsTheRecordOfTheFirstAttempt() {
        RedisIdempotencyStore a = replica(RedisTestSupport.endpoint());
        RedisEndpoint other = newEndpoint(RedisTestSupport.URI);
        RedisTestSupport.awaitUp(other);
        RedisIdempotencyStore b = replica(other);
        RecordedResponse created = new RecordedResponse.Replayable(201,
                List.of(new RecordedResponse.Field("Location", "/v1/labels/lbl_1")),
                "{\"label_id\":\"lbl_1\"}".getBytes(StandardCharsets.UTF_8));

        String token = ((Claim.Acquired) a.begin(KEY, POST_LABELS, LEASE)).token();

        assertThat(b.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.InFlight(POST_LABELS));
        assertThat(a.complete(KEY, token, EMPTY_BODY, created, RETENTION)).isTrue();
        assertThat(b.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.Completed(EMPTY_BODY, created));
    }

    @Test
    void everyRecordKeyHasAnExpiryR16() {
        RedisIdempotencyStore store = replica(RedisTestSupport.endpoint());

        String token = ((Claim.Acquired) store.begin(KEY, POST_LABELS, LEASE)).token();
        List<String> keys = RedisTestSupport.keys(prefix);
        assertThat(keys).hasSize(1);
        // the record's hash tag is the SHA-256 of the API key (no credential in a key name)
        assertThat(keys.get(0)).isEqualTo(prefix + "{" + HashTags.credential(KEY.apiKey()) + "}:5f1c2b7e-0001")
                .matches(java.util.regex.Pattern.quote(prefix) + "\\{s[0-9a-f]{32}\\}:5f1c2b7e-0001")
                .doesNotContain("odd");
        long markerTtl = RedisTestSupport.admin().pttl(keys.get(0));
        assertThat(markerTtl).isBetween(LEASE.toMillis() + 1, 2 * LEASE.toMillis()); // two leases by default

        store.complete(KEY, token, EMPTY_BODY, new RecordedResponse.Replayable(200, List.of(), new byte[0]), RETENTION);
        long recordTtl = RedisTestSupport.admin().pttl(keys.get(0));
        assertThat(recordTtl).isBetween(RETENTION.toMillis() - 60_000, RETENTION.toMillis());
    }

    @Test
    void binaryBodiesAndAnyHeaderTextSurviveTheRoundTrip() {
        RedisIdempotencyStore store = replica(RedisTestSupport.endpoint());
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i; // not UTF-8: stored base64-encoded
        }
        RecordedResponse pdf = new RecordedResponse.Replayable(200, List.of(
                new RecordedResponse.Field("Content-Type", "application/pdf"),
                new RecordedResponse.Field("X-Odd", "12:34 ; 5:x"),
                new RecordedResponse.Field("X-Empty", ""),
                new RecordedResponse.Field("X-Unicode", "façade")), body);
        String token = ((Claim.Acquired) store.begin(KEY, POST_LABELS, LEASE)).token();
        store.complete(KEY, token, EMPTY_BODY, pdf, RETENTION);

        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isEqualTo(new Claim.Completed(EMPTY_BODY, pdf));
    }

    @Test
    void aDamagedFieldListIsAnErrorNotAWrongAnswer() {
        assertThat(RedisIdempotencyStore.decodeFields(RedisIdempotencyStore.encodeFields(List.of(
                new RecordedResponse.Field("A", "1:2"))))).containsExactly(new RecordedResponse.Field("A", "1:2"));
        assertThatThrownBy(() -> RedisIdempotencyStore.decodeFields("4:Name9:short"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RedisIdempotencyStore.decodeFields("x:y")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUnreachableRedisFailsEveryOperationPromptlyAsStoreUnavailable() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort(); // nothing listens here once closed
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        RedisIdempotencyStore store = new RedisIdempotencyStore(newEndpoint("redis://127.0.0.1:" + closed),
                RedisIdempotencyConfig.defaults());
        toClose.add(store);

        CompletableFuture<Claim> begin = store.beginAsync(KEY, POST_LABELS, LEASE).toCompletableFuture();

        // bounded: a hang check, not a speed assertion
        assertThatThrownBy(() -> begin.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> store.lookup(KEY)).isInstanceOf(StoreUnavailableException.class);
        assertThat(store.stats().failures()).isEqualTo(2);
    }

    @Test
    void aBeginThatTimedOutButRanLaterIsAbandonedSoTheRetryIsNotBlocked() throws Exception {
        RedisEndpoint endpoint = newEndpoint(RedisTestSupport.URI);
        RedisTestSupport.awaitUp(endpoint);
        RedisIdempotencyStore store = new RedisIdempotencyStore(endpoint, RedisIdempotencyConfig.builder()
                .keyPrefix(prefix).build()); // the default 50 ms
        toClose.add(store);
        store.lookup(KEY); // the script is loaded and the connection warm

        CompletableFuture<Claim> begin;
        try (StatefulRedisConnection<String, String> second = RedisTestSupport.newConnection()) {
            second.sync().clientPause(300); // CLIENT PAUSE 300 (mode ALL): the begin waits, then runs
            begin = store.beginAsync(KEY, POST_LABELS, LEASE).toCompletableFuture();
            assertThatThrownBy(() -> begin.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreUnavailableException.class);
        }

        RedisTestSupport.await("the late marker abandoned", Duration.ofSeconds(10),
                () -> store.stats().lateAbandons() == 1 && RedisTestSupport.keys(prefix).isEmpty());
        RedisTestSupport.await("redis up again", Duration.ofSeconds(10), endpoint::isUp);
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.Acquired.class);
    }
}
