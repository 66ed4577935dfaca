package dev.sluice.examples.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A default {@code SluiceHttpClient} against the real edge on loopback through a 5 s upstream blip
 * (Shiplane answers 503 with {@code Retry-After: 1}): the failures are typed as what the server said
 * (SPEC §4.2), a retry the budget has no room for waits for room until its call's deadline, and the
 * adaptive throttle does not lock the client out afterwards (SPEC §4.5).
 */
@Tag("slow")
class BlipAgainstTheEdgeTest {

    private static final String KEY = "sk_test_free_2";

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void callsDuringABlipEndAsOverloadedAndTheClientIsSendingAgainOnceItIsOver() throws Exception {
        try (ShiplaneBehindTheEdge env = ShiplaneBehindTheEdge.start();
                SluiceHttpClient client = SluiceHttpClient.builder().build()) {
            env.shiplane.blip(true);
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                calls.add(client.sendAsync(env.request("/v1/quotes", KEY).GET().build(),
                        HttpResponse.BodyHandlers.ofString(), CallOptions.defaults().withDeadline(Duration.ofSeconds(15))));
            }
            // real time: the blip lasts 5 s on the client's own clock, which paces the retries and the budget
            Thread.sleep(Math.max(0, 5_000 - (System.nanoTime() - start) / 1_000_000));
            env.shiplane.blip(false);
            long recovered = System.nanoTime();

            // scenario 3 (while the blip's calls may still wait for room in the budget, until their
            // deadline): the next write is sent, and a client calling 4 times a second is at p = 0
            // within 10 s of the recovery
            var core = ((DefaultSluiceHttpClient) client).core();
            double pAfterBlip = core.throttleWindow().dropProbability();
            HttpResponse<String> label = client.send(env.request("/v1/labels", KEY)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"after the blip\"}")).build(),
                    HttpResponse.BodyHandlers.ofString(), CallOptions.defaults().withDeadline(Duration.ofSeconds(10)));
            assertThat(label.statusCode()).isEqualTo(201);
            List<Double> probabilities = new ArrayList<>();
            long dropsBefore = client.stats().localDrops();
            while (System.nanoTime() - recovered < 10_000_000_000L) {
                long tick = System.nanoTime();
                client.send(env.request("/v1/quotes", KEY).GET().build(), HttpResponse.BodyHandlers.discarding(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(5)));
                probabilities.add(core.throttleWindow().dropProbability());
                Thread.sleep(Math.max(0, 250 - (System.nanoTime() - tick) / 1_000_000)); // real time: 4 calls/s is the load
            }
            System.out.printf("scenario 3 (after the blip): p = %.3f when it ended, window %s; next POST %d;"
                    + " %d calls at 4/s in the next 10 s, p over them %s%n", pAfterBlip, core.throttleWindow(),
                    label.statusCode(), probabilities.size(), probabilities);
            assertThat(client.stats().localDrops()).isEqualTo(dropsBefore);
            assertThat(probabilities.getLast()).isZero();

            // scenario 2: each call succeeded (a retry the budget found room for, after the blip) or ended,
            // by its deadline, as the overload it met, with the hint and its attempts
            Map<String, Integer> outcomes = new TreeMap<>();
            for (CompletableFuture<HttpResponse<String>> f : calls) {
                try {
                    outcomes.merge("status " + f.get(30, TimeUnit.SECONDS).statusCode(), 1, Integer::sum);
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    String budget = c.getCause() instanceof RetryBudgetExhaustedException ? " (budget refused the retry)" : "";
                    outcomes.merge(c.getClass().getSimpleName() + budget, 1, Integer::sum);
                    assertThat(c).isInstanceOfSatisfying(OverloadedException.class, o -> {
                        assertThat(o.status()).isEqualTo(503);
                        assertThat(o.retryAfter()).contains(Duration.ofSeconds(1));
                        assertThat(o.attempts()).isBetween(1, 3);
                    });
                }
            }
            System.out.printf("scenario 2 (blip): %s; %s%n", outcomes, client.stats());
            assertThat(outcomes).containsKey("OverloadedException (budget refused the retry)");
        }
    }
}
