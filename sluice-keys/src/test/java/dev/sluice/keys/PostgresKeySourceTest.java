package dev.sluice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyAdministration.CreatedKey;
import dev.sluice.edge.keys.KeyAdministration.KeyStoreException;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.KeyLookup;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
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

/** The PostgreSQL key store and the edge's cache of it, against the real PostgreSQL on loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresKeySourceTest {

    private TestDatabase db;
    private KeyStores keys;

    @BeforeEach
    void open() {
        db = TestDatabase.schema();
    }

    @AfterEach
    void close() {
        if (keys != null) {
            keys.close();
        }
        db.close();
    }

    private KeyStores open(KeyStoreConfig c, TimeSource time) {
        keys = KeyStores.open(c, KeyIds.DEFAULT, time);
        // the listener's first connection reads the cache again (notifications before it were not heard)
        await("listener up").atMost(Duration.ofSeconds(10)).until(keys::listening);
        return keys;
    }

    @Test
    void aKeyIsStoredAsItsSha256AndNeverInClear() {
        KeyStores k = open(db.config(), TimeSource.system());
        CreatedKey created = k.administration().create("free", 0, Map.of(), Optional.of("acme"), Optional.empty());
        String key = created.apiKey();
        assertThat(key).startsWith("sk_").hasSizeGreaterThanOrEqualTo(35);
        assertThat(created.record().key().keyId()).isEqualTo(KeyIds.DEFAULT.id(key));
        // the row holds the SHA-256 of the key (FIPS 180-4), and no column contains the key
        String sha = KeyHashing.sha256().hash(key);
        assertThat(db.count("SELECT count(*) FROM " + db.prefix() + "sluice_api_keys WHERE key_hash = '" + sha + "'"))
                .isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM " + db.prefix() + "sluice_api_keys t WHERE t::text LIKE '%" + key
                + "%'")).isZero();
        assertThat(db.count("SELECT max(version) FROM " + db.prefix() + "sluice_keys_schema_version")).isEqualTo(1);
    }

    @Test
    void hmacUnderTheEdgeSecretWhenOneIsSet() {
        KeyStores k = open(db.config().withHashSecret(Optional.of("edge secret")), TimeSource.system());
        String key = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty()).apiKey();
        String hmac = new KeyHashing(Optional.of("edge secret")).hash(key);
        assertThat(hmac).isNotEqualTo(KeyHashing.sha256().hash(key));
        assertThat(db.count("SELECT count(*) FROM " + db.prefix() + "sluice_api_keys WHERE key_hash = '" + hmac
                + "'")).isEqualTo(1);
        assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);
    }

    @Test
    void aHitIsAnsweredAtOnceFromMemoryAndAMissOnlyOnce() {
        KeyStores k = open(db.config(), TimeSource.system());
        String key = k.administration().create("pro", 0, Map.of("daily", 500L), Optional.empty(), Optional.empty())
                .apiKey();
        CompletableFuture<KeyLookup> first = k.source().lookup(key);
        KeyLookup found = first.join();
        assertThat(found).isInstanceOf(KeyLookup.Found.class);
        assertThat(((KeyLookup.Found) found).key().quotaOverrides()).isEqualTo(Map.of("daily", 500L));
        long queries = k.source().storeQueries();
        CompletableFuture<KeyLookup> hit = k.source().lookup(key);
        assertThat(hit.isDone()).isTrue();
        assertThat(hit.join()).isSameAs(found);
        assertThat(k.source().storeQueries()).isEqualTo(queries);
    }

    @Test
    void anUnknownTokenIsRememberedAsUnknown() {
        KeyStores k = open(db.config(), TimeSource.system());
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
    void aFloodOfRandomTokensReachesTheDatabaseAtTheBudgetedRate() {
        ManualTimeSource time = new ManualTimeSource(Instant.parse("2026-12-05T00:00:00Z"));
        KeyStores k = open(db.config().withMissLookupsPerSecond(50), time);
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
    void aChangeMadeInTheDatabaseIsSeenWithinOneSecond() {
        KeyStores k = open(db.config(), TimeSource.system());
        await("listener up").atMost(Duration.ofSeconds(10)).until(k::listening);
        CreatedKey created = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty());
        String key = created.apiKey();
        String id = created.record().key().keyId();
        assertThat(plan(k, key)).isEqualTo("free");

        // a plan change by the admin side, an override and a revocation by plain SQL: each seen within 1 s
        k.administration().changePlan(id, "pro");
        await("plan change").atMost(Duration.ofSeconds(1)).until(() -> "pro".equals(plan(k, key)));
        db.sql("UPDATE " + db.prefix() + "sluice_api_keys SET overrides = '{\"daily\": 7}' WHERE key_id = '" + id
                + "'");
        await("override").atMost(Duration.ofSeconds(1)).until(() -> found(k, key).key().quotaOverrides()
                .equals(Map.of("daily", 7L)));
        k.administration().setOverride(id, "daily", OptionalLong.empty());
        await("override cleared").atMost(Duration.ofSeconds(1))
                .until(() -> found(k, key).key().quotaOverrides().isEmpty());
        db.sql("UPDATE " + db.prefix() + "sluice_api_keys SET revoked_at = now() WHERE key_id = '" + id + "'");
        await("revocation").atMost(Duration.ofSeconds(1))
                .until(() -> k.source().lookup(key).join() == KeyLookup.UNKNOWN);
    }

    @Test
    void aKeyCreatedAfterItsTokenWasRememberedAsUnknownIsSeenWithinOneSecond() {
        KeyStores k = open(db.config(), TimeSource.system());
        await("listener up").atMost(Duration.ofSeconds(10)).until(k::listening);
        // the token is asked for before the key exists (a client racing its own sign-up)
        String key = "sk_precreated_" + UUID.randomUUID().toString().replace("-", "");
        assertThat(k.source().lookup(key).join()).isEqualTo(KeyLookup.UNKNOWN);
        db.sql("INSERT INTO " + db.prefix() + "sluice_api_keys (key_hash, key_id, plan) VALUES ('"
                + KeyHashing.sha256().hash(key) + "', '" + KeyIds.DEFAULT.id(key) + "', 'free')");
        await("created").atMost(Duration.ofSeconds(1))
                .until(() -> k.source().lookup(key).join() instanceof KeyLookup.Found);
    }

    @Test
    void aDatabaseThatGoesAwayLeavesCachedKeysAnsweringAndMissesUnavailable() {
        try (TestDatabase own = TestDatabase.database()) {
            KeyStores k = KeyStores.open(own.config(), KeyIds.DEFAULT, TimeSource.system());
            try {
                await("listener up").atMost(Duration.ofSeconds(10)).until(k::listening);
                String key = k.administration().create("free", 0, Map.of(), Optional.empty(), Optional.empty())
                        .apiKey();
                assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);
                own.takeAway();
                for (int i = 0; i < 50; i++) {
                    CompletableFuture<KeyLookup> hit = k.source().lookup(key);
                    assertThat(hit.isDone()).isTrue();
                    assertThat(hit.join()).isInstanceOf(KeyLookup.Found.class);
                }
                KeyLookup miss = k.source().lookup("sk_unseen_" + UUID.randomUUID()).join();
                assertThat(miss).isInstanceOf(KeyLookup.Unavailable.class);
                assertThat(((KeyLookup.Unavailable) miss).retryAfter()).isEqualTo(Duration.ofSeconds(1));
                own.bringBack();
                await("store back").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                        .until(() -> k.source().lookup("sk_unseen_" + UUID.randomUUID()).join() == KeyLookup.UNKNOWN);
                assertThat(k.source().lookup(key).join()).isInstanceOf(KeyLookup.Found.class);
            } finally {
                k.close();
            }
        }
    }

    @Test
    void aStoreDownAtStartIsRefusedOrStartedDegradedAsConfigured() {
        KeyStoreConfig nowhere = KeyStoreConfig.of("jdbc:postgresql://127.0.0.1:1/none?user=postgres");
        assertThatThrownBy(() -> KeyStores.open(nowhere, KeyIds.DEFAULT, TimeSource.system()))
                .isInstanceOf(KeyStoreException.class)
                .hasMessage("key store jdbc:postgresql://127.0.0.1:1/none does not answer; not starting "
                        + "(key-store.on-unavailable-at-start: refuse)");
        try (KeyStores degraded = KeyStores.open(nowhere.withOnUnavailableAtStart(KeyStoreConfig.AtStart.DEGRADED),
                KeyIds.DEFAULT, TimeSource.system())) {
            assertThat(degraded.source().lookup("sk_any_key").join()).isInstanceOf(KeyLookup.Unavailable.class);
        }
    }

    private static KeyLookup.Found found(KeyStores k, String key) {
        return (KeyLookup.Found) k.source().lookup(key).join();
    }

    private static String plan(KeyStores k, String key) {
        return k.source().lookup(key).join() instanceof KeyLookup.Found f ? f.key().plan() : null;
    }
}
