package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.edge.EdgeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code listen.tls} and {@code upstream} TLS fields: read, resolved, and refused with file:line:field. */
class TlsConfigReaderTest {

    private static final String PLANS = """
            plans:
              free: { policies: [ { name: burst, kind: burst, q: 20, w: 2 } ] }
            """;

    @TempDir
    Path dir;

    @Test
    void tlsFilesResolveAgainstTheConfigurationFilesFolder() throws IOException {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, """
                listen:
                  port: 8443
                  tls: { certificate: tls/cert.pem, private-key: /keys/key.pem }
                upstream:
                  url: https://api.internal:9443
                  ca-file: ../ca.pem
                """ + PLANS);
        EdgeConfig c = EdgeConfig.load(file);
        assertThat(c.listen().tls()).hasValue(new TlsConfig(dir.resolve("tls/cert.pem"), Path.of("/keys/key.pem")));
        assertThat(c.upstream().tls()).isTrue();
        assertThat(c.upstream().port()).isEqualTo(9443);
        assertThat(c.upstream().caFile()).hasValue(dir.getParent().resolve("ca.pem")); // normalised
        assertThat(c.upstream().verifyCertificate()).isTrue();
    }

    @Test
    void withoutTlsTheListenerIsPlainAndAnHttpsUpstreamDefaultsToPort443() {
        EdgeConfig c = EdgeConfig.parse("edge.yaml", "listen: 8080\nupstream: { url: https://api.example }\n" + PLANS);
        assertThat(c.listen().tls()).isEqualTo(Optional.empty());
        assertThat(c.upstream().port()).isEqualTo(443);
        assertThat(c.upstream().authority()).isEqualTo("api.example");
    }

    @Test
    void aMissingKeyAndCaFileOnPlainHttpAreRefusedAtTheirLines() {
        String yaml = """
                listen:
                  tls: { certificate: cert.pem, passphrase: x }
                upstream:
                  url: http://127.0.0.1:8081
                  ca-file: ca.pem
                """ + PLANS;
        assertThatThrownBy(() -> EdgeConfig.parse("bad.yaml", yaml)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.problems()).extracting(ConfigProblem::toString).contains(
                        "bad.yaml:2: listen.tls: private-key: required (a PEM file)",
                        "bad.yaml:5: upstream.ca-file: applies to an https:// url only")
                        .anyMatch(p -> p.startsWith("bad.yaml:2: listen.tls.passphrase: unknown field")));
    }
}
