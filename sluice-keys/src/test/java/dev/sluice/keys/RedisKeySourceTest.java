package dev.sluice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyAdministration.CreatedKey;
import dev.sluice.edge.keys.KeyAdministration.KeyRecord;
import dev.sluice.edge.keys.KeyAdministration.KeyStoreException;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.KeyLookup;
import dev.sluice.keys.redis.RedisKeyStore;
import dev.sluice.redis.LocalRedisServers;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis key store and the edge's cache of it, against the real Redis on 127.0.0.1:6379 (skipped with the
 * reason printed when none answers, failed under {@code CI=true}); each test under a key prefix of its own,
 * deleted afterwards.
 */
@ExtendWith(RedisTestSupport.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisKeySourceTest {

    private String prefix;
    private KeyStores keys;

    @BeforeEach
    void prefix() {
        prefix = "sluice-test:keys:" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        if (keys != null) {
            keys.close();
        }
        RedisTestSupport.deletePrefix("{" + prefix + "}");
    }

    private KeyStoreConfig config() {
        return KeyStoreConfig.of(RedisTestSupport.URI).withKeyPrefix(prefix);
    }

    private KeyStores open(KeyStoreConfig c, TimeSource time) {
        keys = KeyStores.open(c, KeyIds.DEFAULT, time);
        // the subscription's first confirmation reads the cache again (messages before it were not heard)
        await("subscription up").atMost(Duration.ofSeconds(10)).until(keys::listening);
        return keys;
    }

    @Test
    void aKeyIsStoredAsItsSha256AndNeverInClear() {
        KeyStores k = open(config(), TimeSource.system());
        CreatedKey created = k.administration().create("free", 0, Map.of("daily", 500L), Optional.of("acme"),
                Optional.of("acme-hooks"));
        String key = created.apiKey();
        assertThat(key).startsWith("sk_").hasSizeGreaterThanOrEqualTo(35);
        assertThat(created.record().key().keyId()).isEqualTo(KeyIds.DEFAULT.id(key));
        // the key's hash is named by the SHA-256 of the key (FIPS 180-4) ...
        String sha = KeyHashing.sha256().hash(key);
        assertThat(RedisTestSupport.keys("{" + prefix + "}")).containsExactlyInAnyOrder(
                "{" + prefix + "}:key:" + sha, "{" + prefix + "}:ids");
        Map<String, String> stored = RedisTestSupport.admin().hgetall("{" + prefix + "}:key:" + sha);
        assertThat(stored).containsEntry("key_id", KeyIds.DEFAULT.id(key)).containsEntry("plan", "free")
                .containsEntry("renewal_day", "0").containsEntry("label", "acme")
                .containsEntry("warning_destination", "acme-hooks").containsEntry("q:daily", "500")
                .containsKey("created_at").doesNotContainKey("revoked_at");
        assertThat(RedisTestSupport.admin().hgetall("{" + prefix + "}:ids"))
                .isEqualTo(Map.of(KeyIds.DEFAULT.id(key), sha));
        // ... and no name, field or value under the prefix holds the key
        for (String name : RedisTestSupport.keys("{" + prefix + "}")) {
            assertThat(name).doesNotContain(key);
            RedisTestSupport.admin().hgetall(name).forEach((f, v) -> {
                assertThat(f).doesNotContain(key);
                assertThat(v).doesNotContain(key);
            });
        }
        // created_at is Redis's clock in Unix milliseconds
        assertThat(created.record().createdAt()).isBetween(Instant.now().minusSeconds(60), Instant.now()
                .plusSeconds(60));
        assertThat(k.administration().find(created.record().key().keyId())).contains(created.record());
    }

    @Test
    void hmacUnderTheEdgeSecretWhenOneIsSet() {
        KeyStores k = open(config().withHashSecret(Optional.of("edge secret")), TimeSource.system());
        String key = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty()).apiKey();
        String hmac = new KeyHashing(Optional.of("edge secret")).hash(key);
        assertThat(hmac).isNotEqualTo(KeyHashing.sha256().hash(key));
        assertThat(RedisTestSupport.admin().exists("{" + prefix + "}:key:" + hmac)).isEqualTo(1);
        assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);
    }

    @Test
    void aHitIsAnsweredAtOnceFromMemoryAndAMissOnlyOnce() {
        KeyStores k = open(config(), TimeSource.system());
        String key = k.administration().create("pro", 7, Map.of("daily", 500L), Optional.empty(), Optional.empty())
                .apiKey();
        KeyLookup found = k.source().lookup(key).join();
        assertThat(found).isInstanceOf(KeyLookup.Found.class);
        assertThat(((KeyLookup.Found) found).key().quotaOverrides()).isEqualTo(Map.of("daily", 500L));
        assertThat(((KeyLookup.Found) found).key().renewalDay()).isEqualTo(7);
        long queries = k.source().storeQueries();
        CompletableFuture<KeyLookup> hit = k.source().lookup(key);
        assertThat(hit.isDone()).isTrue();
        assertThat(hit.join()).isSameAs(found);
        assertThat(k.source().storeQueries()).isEqualTo(queries);
    }

    @Test
    void anUnknownTokenIsRememberedAsUnknown() {
        KeyStores k = open(config(), TimeSource.system());
        String token = "sk_nobody_" + UUID.randomUUID();
        assertThat(k.source().lookup(token).join()).isEqualTo(KeyLookup.UNKNOWN);
        long queries = k.source().storeQueries();
        for (int i = 0; i < 100; i++) {
            CompletableFuture<KeyLookup> again = k.source().lookup(token);
            assertThat(again.isDone()).isTrue();
            assertThat(again.join()).isEqualTo(KeyLookup.UNKNOWN);
        }
        assertThat(k.source().storeQueries()).isEqualTo(queries);
    }

    @Test
    void aFloodOfRandomTokensReachesRedisAtTheBudgetedRate() {
        ManualTimeSource time = new ManualTimeSource(Instant.parse("2026-12-05T00:00:00Z"));
        KeyStores k = open(config().withMissLookupsPerSecond(50), time);
        int unavailable = 0;
        int answered = 0;
        // 3 simulated seconds of 1,000 random tokens each
        for (int second = 0; second < 3; second++) {
            for (int i = 0; i < 1000; i++) {
                KeyLookup l = k.source().lookup("sk_rand_" + UUID.randomUUID()).join();
                if (l instanceof KeyLookup.Unavailable u) {
                    assertThat(u.retryAfter()).isEqualTo(Duration.ofSeconds(1));
                    unavailable++;
                } else {
                    assertThat(l).isEqualTo(KeyLookup.UNKNOWN);
                    answered++;
                }
            }
            time.advanceMillis(1000);
        }
        // the budget: 50 a second, one second deep: at most 50 at the start and 50 per second after
        assertThat(k.source().storeQueries()).isEqualTo(answered).isLessThanOrEqualTo(150);
        assertThat(answered).isGreaterThanOrEqualTo(140);
        assertThat(unavailable).isEqualTo(3000 - answered);
    }

    @Test
    void writesAreSeenWithinOneSecondAndABadOneChangesNothing() {
        KeyStores k = open(config(), TimeSource.system());
        CreatedKey created = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty());
        String key = created.apiKey();
        String id = created.record().key().keyId();
        assertThat(plan(k, key)).isEqualTo("free");

        assertThat(k.administration().changePlan(id, "pro")).map(r -> r.key().plan()).contains("pro");
        await("plan change").atMost(Duration.ofSeconds(1)).until(() -> "pro".equals(plan(k, key)));
        k.administration().setOverride(id, "daily", OptionalLong.of(7));
        await("override").atMost(Duration.ofSeconds(1)).until(() -> found(k, key).key().quotaOverrides()
                .equals(Map.of("daily", 7L)));
        k.administration().setOverride(id, "daily", OptionalLong.empty());
        await("override cleared").atMost(Duration.ofSeconds(1))
                .until(() -> found(k, key).key().quotaOverrides().isEmpty());
        assertThatThrownBy(() -> k.administration().setOverride(id, "daily", OptionalLong.of(0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overrides.daily.q");
        assertThat(RedisTestSupport.admin().hexists("{" + prefix + "}:key:" + KeyHashing.sha256().hash(key),
                "q:daily")).isFalse();

        Optional<KeyRecord> revoked = k.administration().revoke(id);
        assertThat(revoked).isPresent();
        assertThat(revoked.get().revokedAt()).isPresent();
        await("revocation").atMost(Duration.ofSeconds(1))
                .until(() -> k.source().lookup(key).join().equals(KeyLookup.UNKNOWN));
        // a revoked key keeps its first revocation time, cannot be moved, and is still found by id
        assertThat(k.administration().revoke(id).orElseThrow().revokedAt()).isEqualTo(revoked.get().revokedAt());
        assertThat(k.administration().changePlan(id, "free")).isEmpty();
        assertThat(k.administration().find(id).orElseThrow().key().plan()).isEqualTo("pro");
        assertThat(k.administration().revoke("k000000000000")).isEmpty();
    }

    @Test
    void aKeyWrittenByHandAndPublishedIsSeenWithinOneSecond() {
        KeyStores k = open(config(), TimeSource.system());
        // the token is asked for before the key exists (a client racing its own sign-up)
        String key = "sk_precreated_" + UUID.randomUUID().toString().replace("-", "");
        assertThat(k.source().lookup(key).join()).isEqualTo(KeyLookup.UNKNOWN);
        String hash = KeyHashing.sha256().hash(key);
        RedisTestSupport.admin().hset("{" + prefix + "}:key:" + hash, Map.of("key_id", KeyIds.DEFAULT.id(key),
                "plan", "free", "created_at", "1764979200000"));
        RedisTestSupport.admin().publish(prefix + ":changes", hash);
        await("created").atMost(Duration.ofSeconds(1))
                .until(() -> k.source().lookup(key).join() instanceof KeyLookup.Found);
    }

    @Test
    void aMalformedKeyHashIsAStoreErrorNamingTheField() {
        KeyStores k = open(config(), TimeSource.system());
        String key = "sk_handmade_" + UUID.randomUUID().toString().replace("-", "");
        String hash = KeyHashing.sha256().hash(key);
        RedisTestSupport.admin().hset("{" + prefix + "}:key:" + hash, Map.of("key_id", "kx", "plan", "free",
                "created_at", "1764979200000", "q:daily", "many"));
        RedisKeyStore store = (RedisKeyStore) k.administration();
        assertThatThrownBy(() -> store.lookup(hash)).isInstanceOf(KeyStoreException.class)
                .hasMessageContaining("{" + prefix + "}:key:" + hash + " q:daily: ");
        // the cache answers 503 for it, not a wrong key
        assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Unavailable.class);
    }

    @Test
    void aRedisThatGoesAwayLeavesCachedKeysAnsweringMissesUnavailableAndIsResyncedWhenBack() throws Exception {
        try (LocalRedisServers servers = LocalRedisServers.create()) {
            int port = servers.startServer();
            KeyStores k = KeyStores.open(KeyStoreConfig.of("redis://127.0.0.1:" + port).withKeyPrefix(prefix),
                    KeyIds.DEFAULT, TimeSource.system());
            try {
                await("subscription up").atMost(Duration.ofSeconds(10)).until(k::listening);
                // written without a PUBLISH: no refresh of it is in flight when Redis goes (a refresh that fails
                // drops the key from the cache, CachingKeySource.changed: a revocation must not outlive an outage)
                String key = "sk_outage_" + UUID.randomUUID().toString().replace("-", "");
                servers.cli(port, "HSET", "{" + prefix + "}:key:" + KeyHashing.sha256().hash(key), "key_id",
                        KeyIds.DEFAULT.id(key), "plan", "free", "created_at", "1764979200000");
                assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);

                servers.stop(port);
                await("subscription down").atMost(Duration.ofSeconds(5)).until(() -> !k.listening());
                for (int i = 0; i < 50; i++) {
                    CompletableFuture<KeyLookup> hit = k.source().lookup(key);
                    assertThat(hit.isDone()).isTrue();
                    assertThat(hit.join()).isInstanceOf(KeyLookup.Found.class);
                }
                KeyLookup miss = k.source().lookup("sk_unseen_" + UUID.randomUUID()).join();
                assertThat(miss).isInstanceOf(KeyLookup.Unavailable.class);
                assertThat(((KeyLookup.Unavailable) miss).retryAfter()).isEqualTo(Duration.ofSeconds(1));

                // back empty (no persistence): the resubscription reads the cached key again and finds it gone
                servers.restart(port);
                await("subscription back").atMost(Duration.ofSeconds(10)).until(k::listening);
                await("resynchronised").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                        .until(() -> k.source().lookup(key).join().equals(KeyLookup.UNKNOWN));
                assertThat(k.source().lookup("sk_unseen_" + UUID.randomUUID()).join()).isEqualTo(KeyLookup.UNKNOWN);
            } finally {
                k.close();
            }
        }
    }

    @Test
    void aStoreDownAtStartIsRefusedOrStartedDegradedAsConfigured() {
        KeyStoreConfig nowhere = KeyStoreConfig.of("redis://:secret@127.0.0.1:1").withKeyPrefix(prefix);
        assertThatThrownBy(() -> KeyStores.open(nowhere, KeyIds.DEFAULT, TimeSource.system()))
                .isInstanceOf(KeyStoreException.class)
                .hasMessage("key store redis://***@127.0.0.1:1 does not answer; not starting "
                        + "(key-store.on-unavailable-at-start: refuse)");
        try (KeyStores degraded = KeyStores.open(nowhere.withOnUnavailableAtStart(KeyStoreConfig.AtStart.DEGRADED),
                KeyIds.DEFAULT, TimeSource.system())) {
            assertThat(degraded.source().lookup("sk_any_key").join()).isInstanceOf(KeyLookup.Unavailable.class);
        }
    }

    @Test
    void aClusterUrlAtAPlainServerIsRefusedInOneLine() {
        KeyStoreConfig wrong = KeyStoreConfig.of("redis-cluster://127.0.0.1:" + RedisTestSupport.PORT)
                .withKeyPrefix(prefix);
        assertThatThrownBy(() -> KeyStores.open(wrong, KeyIds.DEFAULT, TimeSource.system()))
                .isInstanceOf(KeyStoreException.class)
                .hasMessageStartingWith("key store redis-cluster://127.0.0.1:6379: ")
                .hasMessageEndingWith("; not starting")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void onARedisClusterWritesAndChangesWork() throws Exception {
        try (LocalRedisServers servers = LocalRedisServers.create()) {
            List<Integer> ports = servers.startCluster(3);
            KeyStores k = open(KeyStoreConfig.of("redis-cluster://127.0.0.1:" + ports.get(0) + ",127.0.0.1:"
                    + ports.get(1)).withKeyPrefix(prefix), TimeSource.system());
            CreatedKey made = k.administration().create("free", 0, Map.of("daily", 9L), Optional.empty(),
                    Optional.empty());
            String key = made.apiKey();
            assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);
            k.administration().changePlan(made.record().key().keyId(), "pro");
            await("plan change").atMost(Duration.ofSeconds(1)).until(() -> "pro".equals(plan(k, key)));
            k.administration().revoke(made.record().key().keyId());
            await("revocation").atMost(Duration.ofSeconds(1))
                    .until(() -> k.source().lookup(key).join().equals(KeyLookup.UNKNOWN));
            k.close();
            keys = null;
        }
    }

    @Test
    void throughASentinelWritesAndChangesWork() throws Exception {
        try (LocalRedisServers servers = LocalRedisServers.create()) {
            int primary = servers.startServer();
            int sentinel = servers.startSentinel("keys", primary);
            KeyStores k = open(KeyStoreConfig.of("redis-sentinel://127.0.0.1:" + sentinel + "#keys")
                    .withKeyPrefix(prefix), TimeSource.system());
            CreatedKey made = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty());
            String key = made.apiKey();
            // the key is on the primary the Sentinel names
            try (LocalRedisServers.Node node = LocalRedisServers.node(primary)) {
                assertThat(node.connection().sync().exists("{" + prefix + "}:key:"
                        + KeyHashing.sha256().hash(key))).isEqualTo(1);
            }
            assertThat(plan(k, key)).isEqualTo("free");
            k.administration().changePlan(made.record().key().keyId(), "pro");
            await("plan change").atMost(Duration.ofSeconds(1)).until(() -> "pro".equals(plan(k, key)));
            k.close();
            keys = null;
        }
    }

    private static KeyLookup.Found found(KeyStores k, String key) {
        return (KeyLookup.Found) k.source().lookup(key).join();
    }

    private static String plan(KeyStores k, String key) {
        return k.source().lookup(key).join() instanceof KeyLookup.Found f ? f.key().plan() : null;
    }
}
