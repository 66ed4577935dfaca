package dev.sluice.examples.demo.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tap counts each attempt once, sorts 429s by their problem type, and leaves bodies intact. */
class WireTapTest {

    /** The edge's 429 bodies (SPEC §3.4): type base + /errors/ + code. */
    static final String QUOTA_BODY = "{\"type\":\"https://docs.shiplane.example/errors/quota_exhausted\","
            + "\"title\":\"Daily quota exhausted\",\"status\":429,\"limit\":\"daily\",\"retry_after_s\":19200}";
    static final String RATE_BODY = "{\"type\":\"https://docs.shiplane.example/errors/rate_limited\","
            + "\"title\":\"Rate limited\",\"status\":429,\"limit\":\"burst\",\"retry_after_s\":1}";

    private static HttpServer server;
    private static HttpClient jdk;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.createContext("/ok", ex -> answer(ex, 200, "{\"ok\":true}"));
        server.createContext("/quota", ex -> answer(ex, 429, QUOTA_BODY));
        server.createContext("/rate", ex -> answer(ex, 429, RATE_BODY));
        server.createContext("/not-json", ex -> answer(ex, 429, "slow down"));
        server.createContext("/blip", ex -> answer(ex, 503, "{}"));
        server.createContext("/missing", ex -> answer(ex, 404, "{}"));
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        jdk.close();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", status == 200 ? "application/json" : "application/problem+json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static HttpRequest get(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
                .timeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void eachAttemptIsOfferedOnceAndAnsweredWithItsOutcome() throws Exception {
        SeriesRecorder recorder = started();
        WireTap tap = new WireTap(jdk, recorder);

        for (String path : new String[] {"/ok", "/ok", "/quota", "/rate", "/not-json", "/blip", "/missing"}) {
            tap.send(get(path), HttpResponse.BodyHandlers.ofString());
        }

        SecondCounts s = recorder.second(0);
        assertThat(s.get(Series.OFFERED)).isEqualTo(7);
        assertThat(s.get(Series.ADMITTED)).isEqualTo(2);
        assertThat(s.get(Series.QUOTA_EXHAUSTED)).isEqualTo(1);
        assertThat(s.get(Series.RATE_LIMITED)).isEqualTo(2); // a 429 that says nothing is a burst limit
        assertThat(s.get(Series.UNAVAILABLE)).isEqualTo(1);
        assertThat(s.get(Series.OTHER)).isEqualTo(1);
        assertThat(tap.inFlight()).isZero();
    }

    @Test
    void theCallerStillReadsTheWhole429Body() throws Exception {
        WireTap tap = new WireTap(jdk, started());

        HttpResponse<String> sync = tap.send(get("/quota"), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> async = tap.sendAsync(get("/quota"), HttpResponse.BodyHandlers.ofString())
                .get(10, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(sync.body()).isEqualTo(QUOTA_BODY);
        assertThat(async.body()).isEqualTo(QUOTA_BODY);
    }

    @Test
    void anAsyncAttemptIsCountedWhenItsAnswerArrives() throws Exception {
        SeriesRecorder recorder = started();
        WireTap tap = new WireTap(jdk, recorder);

        tap.sendAsync(get("/rate"), HttpResponse.BodyHandlers.discarding()).get(10, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(recorder.second(0).get(Series.OFFERED)).isEqualTo(1);
        assertThat(recorder.second(0).get(Series.RATE_LIMITED)).isEqualTo(1);
    }

    @Test
    void anAttemptWithNoResponseCountsAsOther() {
        SeriesRecorder recorder = started();
        WireTap tap = new WireTap(jdk, recorder);
        HttpRequest nowhere = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/none"))
                .timeout(Duration.ofSeconds(5)).build();

        assertThatThrownBy(() -> tap.send(nowhere, HttpResponse.BodyHandlers.discarding())).isInstanceOf(IOException.class);

        assertThat(recorder.second(0).get(Series.OFFERED)).isEqualTo(1);
        assertThat(recorder.second(0).get(Series.OTHER)).isEqualTo(1);
        assertThat(tap.inFlight()).isZero();
    }

    @Test
    void retryAfterIsReadAsDelaySecondsOnly() {
        assertThat(AttemptOutcomes.retryAfterSeconds("2")).isEqualTo(2);
        assertThat(AttemptOutcomes.retryAfterSeconds("19200")).isEqualTo(19_200);
        assertThat(AttemptOutcomes.retryAfterSeconds("-1")).isEqualTo(-1);
        assertThat(AttemptOutcomes.retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT")).isEqualTo(-1);
        assertThat(AttemptOutcomes.retryAfterSeconds(null)).isEqualTo(-1);
    }

    /** A recorder on a clock that never moves: everything lands in second 0. */
    private static SeriesRecorder started() {
        SeriesRecorder r = new SeriesRecorder(ManualTimeSource.at("2026-11-30T18:00:00Z"), 1);
        r.start();
        return r;
    }
}
