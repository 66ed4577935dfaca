package dev.sluice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblem;
import dev.sluice.config.ConfigProblems;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code key-store} section: which store a URL names, and each bad setting reported at its line. */
class KeyStoreConfigTest {

    private static ConfigNode section(String yaml) {
        return ConfigNode.parse("edge.yaml", null, new StringReader(yaml)).get("key-store").orElseThrow();
    }

    private static List<String> problems(String yaml) {
        ConfigProblems problems = new ConfigProblems();
        assertThat(KeyStoreConfig.read(section(yaml), problems)).isEmpty();
        return problems.list().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void aRedisUrlAloneIsARedisStoreWithTheDefaults() {
        ConfigProblems problems = new ConfigProblems();
        KeyStoreConfig c = KeyStoreConfig.read(section("key-store: redis://127.0.0.1:6379/2\n"), problems)
                .orElseThrow();
        assertThat(problems.list()).isEmpty();
        assertThat(c.redis()).isTrue();
        assertThat(c.effectiveKeyPrefix()).isEqualTo("sluice:keys");
        assertThat(c.cacheSize()).isEqualTo(100_000);
        assertThat(c.missLookupsPerSecond()).isEqualTo(200);
        assertThat(c.onUnavailableAtStart()).isEqualTo(KeyStoreConfig.AtStart.REFUSE);
    }

    @Test
    void everyRedisUrlFormIsARedisStore() {
        for (String url : List.of("redis://h:6379", "rediss://h:6380", "redis-cluster://h:7000,h:7001",
                "rediss-cluster://h:7000", "redis-sentinel://h:26379#mymaster")) {
            assertThat(KeyStoreConfig.of(url).redis()).as(url).isTrue();
        }
        assertThat(KeyStoreConfig.of("jdbc:postgresql://h/db").redis()).isFalse();
    }

    @Test
    void theRedisSettingsAreRead() {
        ConfigProblems problems = new ConfigProblems();
        KeyStoreConfig c = KeyStoreConfig.read(section("""
                key-store:
                  url: redis-sentinel://127.0.0.1:26379#keys
                  key-prefix: acme:keys
                  hash-secret: s3cret
                  cache-size: 5000
                  unknown-ttl: 10s
                  miss-lookups-per-second: 50
                  on-unavailable-at-start: degraded
                """), problems).orElseThrow();
        assertThat(problems.list()).isEmpty();
        assertThat(c.keyPrefix()).contains("acme:keys");
        assertThat(c.hashSecret()).contains("s3cret");
        assertThat(c.cacheSize()).isEqualTo(5000);
        assertThat(c.unknownTtl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.missLookupsPerSecond()).isEqualTo(50);
        assertThat(c.onUnavailableAtStart()).isEqualTo(KeyStoreConfig.AtStart.DEGRADED);
    }

    @Test
    void postgresSettingsOnARedisStoreAreProblemsAtTheirLines() {
        assertThat(problems("""
                key-store:
                  url: redis://127.0.0.1:6379
                  schema: keys
                  password: pw
                """)).containsExactly(
                "edge.yaml:3: key-store.schema: a PostgreSQL setting; a Redis key store takes key-prefix",
                "edge.yaml:4: key-store.password: a PostgreSQL setting; a Redis key store takes its user and "
                        + "password in the URL (redis://user:password@host:6379)");
    }

    @Test
    void aKeyPrefixOnPostgresOrWithBracesIsAProblemAtItsLine() {
        assertThat(problems("""
                key-store:
                  url: jdbc:postgresql://127.0.0.1/test
                  key-prefix: keys
                """)).containsExactly(
                "edge.yaml:3: key-store.key-prefix: a Redis setting; a PostgreSQL key store takes schema");
        assertThat(problems("""
                key-store:
                  url: redis://127.0.0.1
                  key-prefix: "{keys}"
                """)).containsExactly("edge.yaml:3: key-store.key-prefix: a key prefix of letters, digits and"
                + " : _ . -, at most 64 (no braces: it is the hash tag), was \"{keys}\"");
    }

    @Test
    void aBadUrlIsAProblemAtItsLineWithThePasswordMasked() {
        assertThat(problems("""
                key-store:
                  url: redis-sentinel://:pw@127.0.0.1:26379
                """)).singleElement().asString().startsWith("edge.yaml:2: key-store.url: a sentinel URL names "
                + "its master after '#'").doesNotContain("pw");
        assertThat(problems("key-store: mysql://127.0.0.1/keys\n")).containsExactly("edge.yaml:1: key-store: a "
                + "jdbc:postgresql://host:5432/database or redis://host:6379 URL (also redis-cluster://, "
                + "redis-sentinel://…#master, rediss://), was \"mysql://127.0.0.1/keys\"");
    }

    @Test
    void anUnknownSettingIsAProblemAtItsLine() {
        assertThat(problems("""
                key-store:
                  url: redis://127.0.0.1
                  key-prefx: keys
                """)).singleElement().asString().startsWith("edge.yaml:3: key-store.key-prefx: ");
    }

    @Test
    void theConstructorRefusesSettingsOfTheOtherStore() {
        assertThatThrownBy(() -> KeyStoreConfig.of("redis://h").withSchema("s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PostgreSQL settings");
        assertThatThrownBy(() -> KeyStoreConfig.of("jdbc:postgresql://h/d").withKeyPrefix("p"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key-prefix is a Redis setting");
        assertThatThrownBy(() -> KeyStoreConfig.of("redis://h").withKeyPrefix("a{b}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("key-prefix: ");
        assertThat(KeyStoreConfig.of("redis://h").withHashSecret(Optional.of("x")).hashSecret()).contains("x");
    }
}
