package dev.sluice.examples.story;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.RetryConfig;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.ThrottleConfig;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import dev.sluice.examples.shiplane.ShiplaneStats;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The retried-write story, end to end over loopback (SPEC §3.11): the Shiplane sample API, which deduplicates
 * nothing and counts the labels each Idempotency-Key bought, behind the real edge with
 * {@code POST /v1/labels} requiring {@code Idempotency-Key}. 100 SDK clients ({@link SluiceHttpClient}:
 * one key minted per call, the same key on every attempt) buy one label each and retry up to 3 times
 * through
 * <ul>
 *   <li><b>real timeouts</b>: Shiplane takes 50 to 950 ms, the client gives each attempt 500 ms, so about
 *       half of the attempts that reach Shiplane time out at the client; the edge finishes them without
 *       the client and records Shiplane's answer, and the retry gets that answer (a replay), or a 409 with
 *       {@code Retry-After: 1} while the first is still in flight. The edge's own answers (replay, 409,
 *       429) take milliseconds, far inside the 500 ms, once the JVM is warm (it is warmed first);</li>
 *   <li><b>429s</b>: five clients share each API key, whose burst policy admits 3 at once (3 per 5 s),
 *       so the first wave has up to 40 rate-limited attempts (fewer when it spreads over more than a
 *       token's 1.67 s), retried after their Retry-After.</li>
 * </ul>
 * Afterwards exactly 100 labels exist, none bought twice, and Shiplane saw exactly 100 label requests.
 * (With at most 5 calls × 4 attempts per API key, no key can reach the escalation's 20 early requests of
 * SPEC §3.12, so escalation stays at its defaults and out of the story.)
 */
@Tag("slow")
@Timeout(180)
class RetriedWriteStoryTest {

    private static final int CLIENTS = 100;
    private static final int API_KEYS = 20;
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(500);

    @Test
    void aHundredRetriedWritesThroughTimeoutsAnd429sBuyExactlyAHundredLabels() throws Exception {
        StringBuilder yaml = new StringBuilder("""
                upstream: { response-timeout: 5s, pool-size: 128 }
                plans:
                  tight:
                    policies:
                      - { name: burst, kind: burst, q: 3, w: 5 }
                  warm-up:
                    policies:
                      - { name: burst, kind: burst, q: 1000, w: 1 }
                routes:
                  - { method: POST, path: /v1/labels, criticality: CRITICAL, idempotency-required: true }
                  - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
                keys:
                  sk_warm_up: warm-up
                """);
        for (int k = 0; k < API_KEYS; k++) {
            yaml.append("  sk_story_").append(k).append(": tight\n");
        }
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
        HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        AttemptLog wire = new AttemptLog(jdk);
        List<SluiceHttpClient> clients = new ArrayList<>();
        try (ShiplaneServer shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0)
                .withLatency(Duration.ofMillis(500), Duration.ofMillis(450)).withRandom(new SplittableRandom(5)));
             EdgeServer edge = EdgeServer.start(EdgeConfig.parse("story.yaml", yaml.toString())
                     .withListenPort(0).withAdminPort(0).withUpstreamUrl(shiplane.baseUri()),
                     EdgeOptions.defaults())) {
            Scheduler scheduler = (task, delay) -> {
                ScheduledFuture<?> f = timers.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            };
            URI labels = URI.create("http://127.0.0.1:" + edge.port() + "/v1/labels");
            warmUp(jdk, URI.create("http://127.0.0.1:" + edge.port() + "/v1/quotes"));
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            List<HttpRequest> buys = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                // one SDK client per application instance, as in the demo's fleet; retries: up to 3
                SluiceHttpClient client = SluiceHttpClient.builder()
                        .httpClient(wire)
                        .scheduler(scheduler)
                        .random(new SplittableRandom(i))
                        .attemptTimeout(ATTEMPT_TIMEOUT)
                        .retry(RetryConfig.builder().maxAttempts(4).backoffBase(Duration.ofMillis(100)).build())
                        // one call per client: a throttle fed by one 429 would drop half the retries locally,
                        // which is its job (SPEC §4.5) but not this story's
                        .throttle(ThrottleConfig.disabled())
                        .build();
                clients.add(client);
                HttpRequest buy = HttpRequest.newBuilder(labels)
                        .header("Authorization", "Bearer sk_story_" + (i % API_KEYS))
                        .header("Content-Type", "application/json")
                        .header("X-Story-Call", Integer.toString(i))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"customer-" + i + "\"}"))
                        .build();
                buys.add(buy);
            }
            // every client is built before the first call is sent, so the first wave arrives together and the
            // five calls of an API key meet its 3-at-once burst (building while sending spread the wave over
            // more than a token's 1.67 s on a loaded machine, and then nothing was rate limited)
            for (int i = 0; i < CLIENTS; i++) {
                calls.add(clients.get(i).sendAsync(buys.get(i), HttpResponse.BodyHandlers.ofString(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(20))));
            }
            // wait for every call to end, failed ones included: a call the SDK gave up on is asked again below
            // (allOf(...).get() would throw at the first one instead)
            CompletableFuture.allOf(calls.stream().map(c -> c.handle((r, e) -> null)).toArray(CompletableFuture[]::new))
                    .get(40, TimeUnit.SECONDS);
            List<AttemptLog.Attempt> attempts = wire.attempts();
            long replays = attempts.stream().filter(AttemptLog.Attempt::replayed).count();
            long inFlight = attempts.stream().filter(AttemptLog.Attempt::inFlightConflict).count();
            long timeouts = attempts.stream().filter(AttemptLog.Attempt::timedOut).count();
            long rateLimited = attempts.stream().filter(a -> a.status() == 429).count();
            ShiplaneStats stats = shiplane.stats();
            System.out.printf("retried-write story: %d calls, %d attempts: %d timed out at the client, %d rate limited"
                    + " (429), %d in flight (409 + Retry-After), %d replayed; Shiplane saw %d requests, created %d"
                    + " labels, %d bought twice%n", CLIENTS, attempts.size(), timeouts, rateLimited, inFlight, replays,
                    stats.requests(), stats.labelsCreated(), stats.duplicateLabels());

            // every call ended with a label: 201, a fresh or a replayed one. On a slow machine the SDK can spend
            // its attempts while the first is still being answered (409 in flight, SPEC §3.11) or time out; the
            // application then asks again later with the same key, as the 409 tells it to, and gets the record.
            Set<String> labelIds = new HashSet<>();
            int askedAgain = 0;
            for (int i = 0; i < CLIENTS; i++) {
                HttpResponse<String> r;
                try {
                    r = calls.get(i).join();
                } catch (java.util.concurrent.CompletionException e) {
                    assertThat(e.getCause()).as("call %d", i).isInstanceOf(SluiceException.class); // typed, never raw
                    String key = wire.keyOfCall(Integer.toString(i)).orElseThrow();
                    r = askAgain(jdk, labels, "sk_story_" + (i % API_KEYS), key, "{\"to\":\"customer-" + i + "\"}");
                    askedAgain++;
                }
                assertThat(r.statusCode()).as("call %d", i).isEqualTo(201);
                labelIds.add(r.body().replaceAll(".*\"label_id\":\"([^\"]+)\".*", "$1"));
            }
            System.out.printf("retried-write story: %d calls asked again after the SDK gave up%n", askedAgain);
            // SPEC §3.11: exactly 100 labels, none bought twice, and no retry ever reached Shiplane again
            assertThat(stats.labelsCreated()).isEqualTo(CLIENTS);
            assertThat(stats.duplicateLabels()).isZero();
            assertThat(stats.requestsByRoute()).containsEntry("POST /v1/labels", (long) CLIENTS);
            assertThat(labelIds).hasSize(CLIENTS); // a replay hands back the label its first attempt bought
            Map<String, Long> attemptsPerKey = attempts.stream()
                    .collect(Collectors.groupingBy(AttemptLog.Attempt::idempotencyKey, Collectors.counting()));
            assertThat(attemptsPerKey).hasSize(CLIENTS); // one key per call, reused by its retries
            assertThat(attemptsPerKey.values()).allMatch(n -> n >= 1 && n <= 4);
            for (String key : attemptsPerKey.keySet()) {
                assertThat(shiplane.labelsBoughtWith(key)).as("labels bought with %s", key).isEqualTo(1);
            }
            // the story went through what it claims: timeouts the edge finished alone, and 429s
            assertThat(timeouts).isPositive();
            assertThat(replays).isPositive();
            assertThat(rateLimited).isPositive();
            // replays and 409s are outcomes of their own in the metrics, apart from admissions (SPEC §3.13); the
            // edge may have written one to a client that had already given up, hence "at least"
            String metrics = scrape(jdk, edge.adminPort());
            assertThat(sum(metrics, "outcome=\"replayed\"")).isGreaterThanOrEqualTo(replays);
            assertThat(sum(metrics, "outcome=\"idempotency_conflict\"")).isGreaterThanOrEqualTo(inFlight);
            assertThat(sum(metrics, "outcome=\"rate_limited\"")).isGreaterThanOrEqualTo(rateLimited);
            assertThat(sum(metrics, "outcome=\"escalated\"")).isZero();
        } finally {
            clients.forEach(SluiceHttpClient::close);
            timers.shutdownNow();
            jdk.close();
        }
    }

    /**
     * The application's own later retry of a call the SDK gave up on: the same request and key, until the
     * edge hands back the recorded answer (bounded: 10 s).
     */
    private static HttpResponse<String> askAgain(HttpClient http, URI labels, String apiKey, String idempotencyKey,
            String body) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(labels)
                    .header("Authorization", "Bearer " + apiKey)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", idempotencyKey)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 201 || System.nanoTime() - deadline > 0) {
                return r;
            }
            // 409 in flight or 429: wait what the edge says (Retry-After), then ask again; real time, as
            // the edge's own clock decides when the recorded answer or the next token is there
            long seconds = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(Math.max(1, seconds)));
        }
    }

    /**
     * Loads the edge's and the client's classes before the story (a cold JVM on a shared machine is slow at
     * first): ten quotes at once, so the wait is one Shiplane latency.
     */
    private static void warmUp(HttpClient http, URI quotes) throws Exception {
        List<CompletableFuture<HttpResponse<Void>>> warm = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            warm.add(http.sendAsync(HttpRequest.newBuilder(quotes).header("Authorization", "Bearer sk_warm_up").build(),
                    HttpResponse.BodyHandlers.discarding()));
        }
        for (CompletableFuture<HttpResponse<Void>> w : warm) {
            assertThat(w.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    private static String scrape(HttpClient http, int adminPort) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The sum of {@code sluice_edge_decisions_total} samples whose labels contain {@code label}. */
    private static long sum(String metrics, String label) {
        long total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("sluice_edge_decisions_total{") && line.contains(label)) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
