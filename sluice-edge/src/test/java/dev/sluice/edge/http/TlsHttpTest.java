package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.SelfSigned;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS on the public listener ({@code listen.tls}) against real peers: the JDK client over HTTP/2 and
 * HTTP/1.1 chosen by ALPN (RFC 7301), curl and h2load; the certificate reloaded when its files change, a bad
 * pair refused at start (naming the file) and on reload (keeping the previous one). Certificates are made at
 * test time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(NoLeaks.class)
class TlsHttpTest {

    private static final String PRO = "sk_test_pro_1";

    @TempDir
    Path dir;
    private SelfSigned cert;
    private Path certFile;
    private Path keyFile;
    private TestUpstream upstream;
    private Edges edge;
    private HttpClient h2;
    private HttpClient h1;

    @BeforeEach
    void start() throws IOException {
        cert = SelfSigned.localhost(dir, "first");
        certFile = dir.resolve("tls/edge.crt");
        keyFile = dir.resolve("tls/edge.key");
        Files.createDirectories(certFile.getParent());
        cert.copyTo(certFile, keyFile);
        upstream = new TestUpstream();
        edge = Edges.start(config(certFile, keyFile), upstream.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"));
        h2 = HttpClient.newBuilder().sslContext(cert.clientContext()).version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(5)).build();
        h1 = HttpClient.newBuilder().sslContext(cert.clientContext()).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        h2.close();
        h1.close();
        edge.close();
        upstream.close();
    }

    private static EdgeConfig config(Path certificate, Path key) {
        return EdgeConfig.parse("tls.yaml", Edges.SHIPLANE + """
                listen:
                  tls:
                    certificate: "%s"
                    private-key: "%s"
                """.formatted(certificate, key));
    }

    private URI uri(String path) {
        return URI.create("https://127.0.0.1:" + edge.server.port() + path);
    }

    private static HttpResponse<String> send(HttpClient client, URI uri, String key) {
        try {
            return client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + key)
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theJdkClientGetsHttp2ByAlpnWithTheRateLimitFieldsAndTheUpstreamIsToldHttps() {
        HttpResponse<String> r = send(h2, uri("/v1/quotes"), PRO);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).isEqualTo(200);
        // the pro plan (the test configuration): burst 200 per 2 s and 1,000,000 a day, one of each spent; the day
        // ends 12 h after the clock's 12:00 UTC
        assertThat(r.headers().firstValue("ratelimit")).hasValue("\"burst\";r=199;t=1, \"daily\";r=999999;t=43200");
        assertThat(upstream.seen()).singleElement().satisfies(s -> {
            assertThat(s.header("x-forwarded-proto")).isEqualTo("https");
            assertThat(s.header("x-forwarded-host")).isEqualTo("127.0.0.1:" + edge.server.port());
        });
        assertThat(edge.server.scheme()).isEqualTo("https");
    }

    @Test
    void theJdkClientGetsHttp11WhenItOffersOnlyThat() {
        HttpResponse<String> r = send(h1, uri("/v1/quotes"), PRO);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("ratelimit-policy")).isPresent();
    }

    @Test
    void aRejectionOverTlsIsThe429ProblemAsInPlainHttp() {
        edge.exhaustBurst(PRO);
        HttpResponse<String> r = send(h2, uri("/v1/quotes"), PRO);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("retry-after")).hasValue("1");
        assertThat(r.body()).contains("rate_limited");
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void curlVerifiesTheCertificateAndSpeaksBothProtocols() {
        Assumptions.assumeTrue(onPath("curl"), "curl is not installed");
        String base = "https://localhost:" + edge.server.port() + "/v1/quotes";
        List<String> common = List.of("curl", "-sS", "--cacert", cert.certificate().toString(),
                "--resolve", "localhost:" + edge.server.port() + ":127.0.0.1", "-H", "Authorization: Bearer " + PRO,
                "-o", "/dev/null", "-w", "%{http_version} %{http_code}");
        Run two = run(concat(common, "--http2", base));
        assertThat(two.out()).as(two.err()).isEqualTo("2 200");
        Run one = run(concat(common, "--http1.1", base));
        assertThat(one.out()).as(one.err()).isEqualTo("1.1 200");
        // without the certificate to trust, curl refuses the self-signed one
        Run untrusted = run(List.of("curl", "-sS", "-o", "/dev/null", "--resolve",
                "localhost:" + edge.server.port() + ":127.0.0.1", base));
        assertThat(untrusted.exit()).isEqualTo(60); // CURLE_PEER_FAILED_VERIFICATION
    }

    @Test
    void h2loadNegotiatesH2AndEveryRequestSucceeds() {
        if (!onPath("h2load")) {
            System.out.println("TlsHttpTest: h2load (Debian nghttp2-client) is not installed; skipped");
            Assumptions.abort("h2load is not installed");
        }
        Run r = run(List.of("h2load", "-n", "100", "-c", "2", "-m", "10", "-H", "authorization: Bearer " + PRO,
                uri("/v1/quotes").toString()));
        assertThat(r.out()).as(r.err()).contains("Application protocol: h2");
        assertThat(r.out()).contains("requests: 100 total, 100 started, 100 done, 100 succeeded, 0 failed");
        assertThat(r.out()).contains("status codes: 100 2xx");
        assertThat(upstream.requests()).isEqualTo(100);
    }

    @Test
    void plainHttpOnTheHttpsPortIsNotServedAndCounted() throws IOException {
        try (java.net.Socket plain = new java.net.Socket("127.0.0.1", edge.server.port())) {
            plain.setSoTimeout(5_000);
            plain.getOutputStream().write(("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + PRO
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // the connection ends without an HTTP answer (at most a TLS alert): the bytes are not a TLS record
            byte[] answer = plain.getInputStream().readAllBytes();
            assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/");
        }
        assertThat(upstream.requests()).isZero();
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(edge.metrics()).contains("sluice_edge_connection_errors_total{kind=\"tls\"} 1.0"));
    }

    @Test
    void aChangedCertificateIsServedToNewConnectionsWithoutARestart() {
        assertThat(SelfSigned.served(edge.server.port())).isEqualTo(cert.x509());
        SelfSigned renewed = SelfSigned.localhost(dir, "renewed");
        renewed.copyTo(certFile, keyFile);
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(SelfSigned.served(edge.server.port())).isEqualTo(renewed.x509()));
        assertThat(edge.server.certificate()).hasValue(renewed.x509());
        HttpClient client = HttpClient.newBuilder().sslContext(renewed.clientContext()).build();
        try (client) {
            assertThat(send(client, uri("/v1/quotes"), PRO).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aBadReloadKeepsThePreviousCertificate() throws IOException {
        Files.writeString(certFile, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");
        assertThat(edge.server.reloadCertificate()).isFalse();
        assertThat(SelfSigned.served(edge.server.port())).isEqualTo(cert.x509());
        // a certificate with another's key: refused too
        SelfSigned other = SelfSigned.localhost(dir, "other");
        Files.copy(other.certificate(), certFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(edge.server.reloadCertificate()).isFalse();
        assertThat(SelfSigned.served(edge.server.port())).isEqualTo(cert.x509());
        assertThat(send(h2, uri("/v1/quotes"), PRO).statusCode()).isEqualTo(200);
    }

    @Test
    void aMalformedCertificateIsRefusedAtStartNamingTheFile() throws IOException {
        Path bad = dir.resolve("bad.crt");
        Files.writeString(bad, "hello\n");
        assertThatThrownBy(() -> Edges.start(config(bad, keyFile), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("listen.tls.certificate: " + bad + " is not a PEM certificate (no BEGIN CERTIFICATE)");
        SelfSigned other = SelfSigned.localhost(dir, "other");
        assertThatThrownBy(() -> Edges.start(config(certFile, other.privateKey()), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("listen.tls.private-key: " + other.privateKey() + " is not the key of the "
                        + "certificate CN=localhost in " + certFile);
        Path missing = dir.resolve("missing.key");
        assertThatThrownBy(() -> Edges.start(config(certFile, missing), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z")))
                .hasMessageStartingWith("listen.tls.private-key: cannot read " + missing);
    }

    // ---- processes ----------------------------------------------------------------------------

    record Run(int exit, String out, String err) {
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    static boolean onPath(String command) {
        for (String folder : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(folder, command))) {
                return true;
            }
        }
        return false;
    }

    static Run run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            byte[] err = p.getErrorStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not finish in 30 s");
            }
            return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8).strip(),
                    new String(err, StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
