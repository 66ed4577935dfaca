package dev.sluice.delivery.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeliveryFileTest {

    @TempDir
    Path dir;

    Path write(String yaml) throws IOException {
        Path f = dir.resolve("sluice-delivery.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    static final String FULL = """
            store: jdbc:postgresql://127.0.0.1:5432/app?user=sluice
            schema: sluice
            worker:
              concurrency: 16
              request-timeout: 5s
              lease: 45s
              poll-interval: 250ms
            max-age:
              default: 48h
              presence: 5m
              purchase.completed: 3d
            redact:
              - $.player.email
            destinations:
              merchant-a:
                url: http://127.0.0.1:8081/webhooks
                rate: { per-second: 10, burst: 20 }
                secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
              legacy:
                url: https://legacy.example/hook
                rate: { per-second: 0.5 }
                secret: env:LEGACY_SECRET
                idempotent: false
            """;

    @Test
    void readsEverySetting() throws IOException {
        DeliveryFile f = DeliveryFile.load(write(FULL),
                Map.of("LEGACY_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")::get);

        assertThat(f.store()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/app?user=sluice");
        assertThat(f.schema()).isEqualTo("sluice");
        assertThat(f.config().concurrency()).isEqualTo(16);
        assertThat(f.config().requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(f.config().lease()).isEqualTo(Duration.ofSeconds(45));
        assertThat(f.config().pollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(f.config().maxAge("presence")).isEqualTo(Duration.ofMinutes(5));
        assertThat(f.config().maxAge("purchase.completed")).isEqualTo(Duration.ofDays(3));
        assertThat(f.config().maxAge("anything.else")).isEqualTo(Duration.ofHours(48));
        assertThat(f.config().redactPaths()).containsExactly("$.player.email");
        assertThat(f.destinations()).extracting(Destination::name).containsExactly("merchant-a", "legacy");
        assertThat(f.destinations().get(0).rate()).isEqualTo(new Rate(10, 20));
        assertThat(f.destinations().get(0).idempotent()).isTrue();
        assertThat(f.destinations().get(1).rate()).isEqualTo(new Rate(0.5, 1));
        assertThat(f.destinations().get(1).idempotent()).isFalse();
    }

    @Test
    void maxRetryAfterIsReadAndDefaultsTo24Hours() throws IOException {
        assertThat(DeliveryFile.load(write("worker:\n  max-retry-after: 2h\n")).config().maxRetryAfter())
                .isEqualTo(Duration.ofHours(2));
        assertThat(DeliveryFile.load(write("")).config().maxRetryAfter()).isEqualTo(Duration.ofHours(24));
        Path bad = write("worker:\n  max-retry-after: 0s\n");
        assertThatThrownBy(() -> DeliveryFile.load(bad)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.max-retry-after");
    }

    @Test
    void anEmptyFileMeansEveryDefault() throws IOException {
        DeliveryFile f = DeliveryFile.load(write(""));

        assertThat(f.store()).isEqualTo("sqlite:./sluice-delivery.db");
        assertThat(f.config().requestTimeout()).isEqualTo(Duration.ofSeconds(3)); // SPEC §6.2 default
        assertThat(f.destinations()).isEmpty();
    }

    @Test
    void aBadRateNamesFileLineAndField() throws IOException {
        Path p = write(FULL.replace("per-second: 10", "per-second: -1"));

        assertThatThrownBy(() -> DeliveryFile.load(p, Map.of("LEGACY_SECRET", "x")::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(p + ":17:")
                .hasMessageContaining("destinations.merchant-a.rate.per-second: must be > 0, was -1")
                .satisfies(e -> {
                    ConfigProblem c = ((ConfigException) e).problems().get(0);
                    assertThat(c.line()).isEqualTo(17);
                    assertThat(c.path()).isEqualTo("destinations.merchant-a.rate.per-second");
                });
    }

    @Test
    void aRateBeyondOneRequestAMicrosecondIsAProblemNotACrash() throws IOException {
        // found by DeliveryFileFuzzTest: the default burst of 2e37/s overflowed to -1 and Rate threw
        Path p = write(FULL.replace("per-second: 10, burst: 20", "per-second: 20000000000000000000000000000000000000"));

        assertThatThrownBy(() -> DeliveryFile.load(p, Map.of("LEGACY_SECRET", "x")::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("destinations.merchant-a.rate.per-second: must be at most 1000000");
    }

    @Test
    void anUnknownKeyIsAnErrorNotASilentDefault() throws IOException {
        Path p = write("worker:\n  concurency: 4\n");

        assertThatThrownBy(() -> DeliveryFile.load(p)).isInstanceOf(ConfigException.class)
                .hasMessage(p + ":2: worker.concurency: unknown field; did you mean \"concurrency\"? (expected one of "
                        + "concurrency, request-timeout, lease, poll-interval, max-retry-after)");
    }

    @Test
    void aMissingSecretVariableIsNamed() throws IOException {
        Path p = write(FULL);

        assertThatThrownBy(() -> DeliveryFile.load(p, Map.<String, String>of()::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(":22:")
                .hasMessageContaining("destinations.legacy.secret: environment variable LEGACY_SECRET is not set");
    }

    @Test
    void aMissingUrlIsNamed() throws IOException {
        Path p = write("destinations:\n  m:\n    rate: { per-second: 1 }\n    secret: x\n");

        assertThatThrownBy(() -> DeliveryFile.load(p)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("destinations.m.url: missing");
    }

    @Test
    void aBadDurationAndABadStoreAreNamed() throws IOException {
        Path p1 = write("max-age:\n  presence: five minutes\n");
        assertThatThrownBy(() -> DeliveryFile.load(p1)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(":2: max-age.presence: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, "
                        + "was \"five minutes\"");

        Path p2 = write("store: mysql://x\n");
        assertThatThrownBy(() -> DeliveryFile.load(p2)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(":1: store:");
    }

    @Test
    void brokenYamlIsReportedWithItsPosition() throws IOException {
        Path p = write("destinations:\n  m: [unclosed\n");

        assertThatThrownBy(() -> DeliveryFile.load(p)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("not valid YAML");
    }

    @Test
    void aMissingFileIsNamed() {
        Path p = dir.resolve("absent.yaml");
        assertThatThrownBy(() -> DeliveryFile.load(p)).isInstanceOf(ConfigException.class)
                .hasMessage(p + ":0: no such file");
    }

    @Test
    void everyProblemIsReportedAtOnceInLineOrder() throws IOException {
        Path p = write("""
                worker:
                  lease: 4.5s
                  poll-interval: soon
                destinations:
                  m:
                    url: http://127.0.0.1:9/h
                    rate: { per-second: 0 }
                    secret: x
                max-age:
                  default: 0s
                """);

        assertThatThrownBy(() -> DeliveryFile.load(p)).isInstanceOf(ConfigException.class)
                .hasMessage(p + ":3: worker.poll-interval: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was "
                        + "\"soon\"\n"
                        + p + ":7: destinations.m.rate.per-second: must be > 0, was 0\n"
                        + p + ":10: max-age.default: must be > 0, was 0s");
    }

    @Test
    void durationsUseTheSharedGrammarWithDecimals() throws IOException {
        DeliveryFile f = DeliveryFile.load(write("worker:\n  lease: 4.5s\n  request-timeout: PT3S\n"));

        assertThat(f.config().lease()).isEqualTo(Duration.ofMillis(4500));
        assertThat(f.config().requestTimeout()).isEqualTo(Duration.ofSeconds(3));
    }
}
