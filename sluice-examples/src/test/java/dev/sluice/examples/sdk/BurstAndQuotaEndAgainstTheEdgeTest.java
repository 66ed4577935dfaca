package dev.sluice.examples.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.CallOptions;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.SluiceResponse;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A default {@code SluiceHttpClient} against the real edge on loopback ({@link ShiplaneBehindTheEdge}):
 * a burst on a key another client just spent, and the end of a daily quota (SPEC §4.2, §4.6).
 */
@Tag("slow")
class BurstAndQuotaEndAgainstTheEdgeTest {

    private static final String FREE_KEY = "sk_test_free_1";

    /**
     * SPEC §4.2: a 429 {@code rate_limited} is a pacing signal. 30 concurrent GETs with a 15 s
     * deadline on a Free key (20 per 2 s) whose burst another client has just spent: all 30
     * succeed within the deadline, with at most 40 requests on the wire.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void thirtyCallsOnASpentBurstAllSucceedWithinTheirDeadline() throws Exception {
        try (ShiplaneBehindTheEdge env = ShiplaneBehindTheEdge.start();
                SluiceHttpClient client = SluiceHttpClient.builder().build()) {
            ClientStats stats = burstOnASpentKey(env, client, "defaults");
            assertThat(stats.attempts()).as("requests on the wire").isLessThanOrEqualTo(40);
            // scenario 3 after a burst: the client's next write is sent, not dropped by the throttle
            var window = ((DefaultSluiceHttpClient) client).core().throttleWindow();
            HttpResponse<String> label = client.send(env.request("/v1/labels", FREE_KEY)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"after the burst\"}")).build(),
                    HttpResponse.BodyHandlers.ofString(), CallOptions.defaults().withDeadline(Duration.ofSeconds(10)));
            System.out.printf("scenario 3 (after the burst): window %s; next POST /v1/labels %d%n", window,
                    label.statusCode());
            assertThat(label.statusCode()).isEqualTo(201);
            assertThat(window.dropProbability()).isZero();
        }
    }

    /**
     * The same burst with {@code PacerConfig.documented(10, 20)}: the pacer starts 18 calls at once
     * (its paced burst), the edge refuses most of them, and each refused call waits in the pacer and
     * is re-sent at the paced rate without spending the retry budget: 30/30 within the deadline.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withTheDocumentedLimitTheRefusedCallsArePacedAndAllSucceed() throws Exception {
        try (ShiplaneBehindTheEdge env = ShiplaneBehindTheEdge.start();
                SluiceHttpClient client = SluiceHttpClient.builder()
                        .pacer(dev.sluice.client.PacerConfig.documented(10, 20)).build()) {
            ClientStats stats = burstOnASpentKey(env, client, "documented(10, 20)");
            assertThat(stats.pacedRetries()).as("refused calls re-sent by the pacer").isPositive();
            assertThat(stats.budgetExhaustions()).isZero();
            // each result says what it took: a re-sent call reports 2 attempts and at least the 1 s hint waited
            List<SluiceResponse<?>> resent = lastResponses.stream().filter(r -> r.attempts() == 2).toList();
            assertThat(resent).hasSize((int) stats.pacedRetries())
                    .allSatisfy(r -> assertThat(r.waited()).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
        }
    }

    private final List<SluiceResponse<?>> lastResponses = new ArrayList<>();

    private ClientStats burstOnASpentKey(ShiplaneBehindTheEdge env, SluiceHttpClient client, String label)
            throws Exception {
        {
            env.spendBurst(FREE_KEY);
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            List<Long> doneMillis = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < 30; i++) {
                HttpRequest get = env.request("/v1/quotes", FREE_KEY).GET().build();
                CompletableFuture<HttpResponse<String>> f = client.sendAsync(get, HttpResponse.BodyHandlers.ofString(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(15)));
                f.whenComplete((r, e) -> doneMillis.add((System.nanoTime() - start) / 1_000_000));
                calls.add(f);
            }
            Map<String, Integer> outcomes = new TreeMap<>();
            for (CompletableFuture<HttpResponse<String>> f : calls) {
                String outcome;
                try {
                    HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
                    lastResponses.add((SluiceResponse<?>) r); // the JDK type, and what the call took
                    outcome = "status " + r.statusCode();
                } catch (java.util.concurrent.ExecutionException e) {
                    outcome = e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
                }
                outcomes.merge(outcome, 1, Integer::sum);
            }
            ClientStats stats = client.stats();
            long lastMillis = doneMillis.stream().mapToLong(Long::longValue).max().orElse(0);
            System.out.printf("scenario 1 (burst, %s): %s; %d requests on the wire, last call done after %d ms; %s%n",
                    label, outcomes, stats.attempts(), lastMillis, stats);
            assertThat(outcomes).containsExactly(Map.entry("status 200", 30));
            assertThat(lastMillis).as("every call within its 15 s deadline").isLessThan(15_000);
            return stats;
        }
    }

    /**
     * SPEC §4.6: the last of a quota is spread over its reset with the first of the remaining
     * {@code r} sent at once, and a call the pacer cannot grant because the quota is spent fails with
     * {@code QuotaExceededException} naming the policy and its reset, without a request. A daily
     * quota of 12 and 13 sequential calls: 12 succeed, the 13th raises it (policy {@code daily},
     * reset at the next 00:00 UTC) with 0 attempts.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aDailyQuotaOfTwelveGivesTwelveCallsAndThenNamesItsReset() throws Exception {
        try (ShiplaneBehindTheEdge env = ShiplaneBehindTheEdge.start();
                SluiceHttpClient client = SluiceHttpClient.builder().build()) {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                HttpRequest get = env.request("/v1/quotes", ShiplaneBehindTheEdge.DAILY_12_KEY).GET().build();
                statuses.add(client.send(get, HttpResponse.BodyHandlers.ofString(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(10))).statusCode());
            }
            long attemptsBefore = client.stats().attempts();
            Instant nextMidnight = LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
            HttpRequest thirteenth = env.request("/v1/quotes", ShiplaneBehindTheEdge.DAILY_12_KEY).GET().build();
            assertThatThrownBy(() -> client.send(thirteenth, HttpResponse.BodyHandlers.ofString(),
                    CallOptions.defaults().withDeadline(Duration.ofSeconds(10))))
                    .isInstanceOfSatisfying(QuotaExceededException.class, q -> {
                        System.out.printf("scenario 4 (quota end): %s; then %s%n", statuses, q);
                        assertThat(q.policy()).contains("daily");
                        assertThat(q.resetAt()).hasValueSatisfying(at ->
                                assertThat(Duration.between(nextMidnight, at).abs()).isLessThanOrEqualTo(Duration.ofSeconds(2)));
                        assertThat(q.attempts()).isZero();
                    });
            assertThat(statuses).hasSize(12).containsOnly(200);
            assertThat(client.stats().attempts()).as("the 13th sent no request").isEqualTo(attemptsBefore).isEqualTo(12);
        }
    }
}
