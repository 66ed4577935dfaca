package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.wire.problem.ProblemDetails;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §2.3 and §3.4 over real HTTP on a fake clock: on every 429 the edge writes, the {@code RateLimit}
 * member of the policy named by the body's {@code limit} has {@code t} equal to {@code Retry-After} and to
 * {@code retry_after_s}, and {@code violated-policies} names the policies that refused. Checked for
 * {@code rate_limited}, {@code quota_exhausted}, two policies refusing at once, and the escalated 429s of
 * the retry-loop stage (SPEC §3.12), which are also kept per (key, client address).
 */
@ExtendWith(NoLeaks.class)
class TooManyRequestsConsistencyHttpTest {

    private static final String CONFIG = """
            admin: off
            problem: { base-uri: https://docs.shiplane.example }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
              twoBursts:
                policies:
                  - { name: per-second, kind: burst, q: 5, w: 5 }
                  - { name: per-minute, kind: burst, q: 5, w: 60 }
              tiny:
                policies:
                  - { name: burst, kind: burst, q: 5, w: 5 }
                  - { name: daily, kind: quota, q: 5, window: daily }
              slow:
                policies:
                  - { name: burst, kind: burst, q: 1, w: 1 }
            keys:
              sk_free: free
              sk_slow: slow
              sk_two: twoBursts
              sk_tiny: tiny
            routes:
              - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
            """;
    private static final Pattern MEMBER = Pattern.compile("\"([^\"]+)\";r=(\\d+);t=(\\d+)");

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(CONFIG, upstream, "2026-11-30T18:00:00Z");

    /** {@code "burst";r=0;t=1, "daily";r=9980;t=21600} as name → [r, t]. */
    static Map<String, long[]> rateLimit(HttpResponse<String> r) {
        Map<String, long[]> out = new LinkedHashMap<>();
        Matcher m = MEMBER.matcher(r.headers().firstValue("RateLimit").orElseThrow());
        while (m.find()) {
            out.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
        }
        return out;
    }

    /** Asserts the SPEC §2.3 / §3.4 agreement and returns Retry-After. */
    static long assertConsistent429(HttpResponse<String> r, String type, String limit, List<String> violated) {
        assertThat(r.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
        ProblemDetails body = ProblemDetails.parse(r.body()).orElseThrow();
        assertThat(body.type()).isEqualTo("https://docs.shiplane.example/errors/" + type);
        assertThat(body.limit()).isEqualTo(limit);
        assertThat(body.retryAfterSeconds()).isEqualTo(retryAfter);
        assertThat(body.violatedPolicies()).isEqualTo(violated);
        Map<String, long[]> fields = rateLimit(r);
        assertThat(fields).containsKey(limit);
        assertThat(fields.get(limit)[1]).as("t of %s", limit).isEqualTo(retryAfter);
        for (String name : violated) {
            assertThat(fields.get(name)[0]).as("r of violated %s", name).isZero();
        }
        return retryAfter;
    }

    @Test
    void aBurstDenialAgreesEverywhere() {
        edge.exhaustBurst("sk_free");
        HttpResponse<String> r = edge.get("/v1/quotes", "sk_free");

        // 20 per 2 s: one token back in 0.1 s, announced as 1 s (ceiling, SPEC §2.3)
        assertThat(assertConsistent429(r, "rate_limited", "burst", List.of("burst"))).isEqualTo(1);
    }

    @Test
    void aQuotaDenialAgreesEverywhere() {
        edge.spend("sk_free", 10_000);
        edge.advanceTo("2026-11-30T18:40:00Z");
        HttpResponse<String> r = edge.get("/v1/quotes", "sk_free");

        // SPEC §3.4: 18:40 UTC, 5 h 20 min to the daily reset
        assertThat(assertConsistent429(r, "quota_exhausted", "daily", List.of("daily"))).isEqualTo(19_200);
    }

    @Test
    void twoBurstPoliciesRefusingAtOnceNameTheLongerWaitAndBoth() {
        for (int i = 0; i < 5; i++) {
            assertThat(edge.get("/v1/quotes", "sk_two").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> r = edge.get("/v1/quotes", "sk_two");

        // per-second: 1 token per second back in 1 s; per-minute: 1 per 12 s; the client must wait for both
        assertThat(assertConsistent429(r, "rate_limited", "per-minute", List.of("per-second", "per-minute")))
                .isEqualTo(12);
        assertThat(rateLimit(r).get("per-second")[1]).isEqualTo(5); // its own standing: full in 5 s
    }

    @Test
    void aBurstAndAQuotaRefusingAtOnceAreAQuotaExhaustedNamingBoth() {
        for (int i = 0; i < 5; i++) {
            assertThat(edge.get("/v1/quotes", "sk_tiny").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> r = edge.get("/v1/quotes", "sk_tiny");

        assertThat(assertConsistent429(r, "quota_exhausted", "daily", List.of("burst", "daily")))
                .isEqualTo(21_600);
    }

    @Test
    void anEscalated429SendsTheLongerRetryAfterEverywhereAndHoldsTheKeyToIt() {
        HttpClient loop = client("127.0.0.1");
        // a tight loop on 1 request per second: 20 requests a second, Retry-After: 1 ignored, until it escalates
        HttpResponse<String> escalated = null;
        for (int i = 0; i < 400 && escalated == null; i++) {
            HttpResponse<String> r = send(loop, "sk_slow");
            if (r.statusCode() == 429 && !r.headers().firstValue("Retry-After").orElseThrow().equals("1")) {
                escalated = r;
            }
            edge.time.advance(Duration.ofMillis(50));
        }
        assertThat(escalated).as("escalated within 20 s").isNotNull();

        long retryAfter = assertConsistent429(escalated, "rate_limited", "burst", List.of("burst"));
        assertThat(retryAfter).isEqualTo(2); // level 1: 2 × the limiter's 1 s
        // honest and enforced: just before it ends still a 429 (though the bucket has tokens again) ...
        edge.time.advance(Duration.ofMillis(1_900));
        HttpResponse<String> early = send(loop, "sk_slow");
        assertConsistent429(early, "rate_limited", "burst", List.of("burst"));
        assertThat(Long.parseLong(early.headers().firstValue("Retry-After").orElseThrow())).isEqualTo(1);
        // ... and once it is over, the request is admitted
        edge.time.advance(Duration.ofMillis(100));
        assertThat(send(loop, "sk_slow").statusCode()).isEqualTo(200);
    }

    @Test
    void oneClientLoopingDoesNotEscalateAnotherClientOfTheSameKey() {
        HttpClient loop = client("127.0.0.1");
        HttpClient polite = client("127.0.0.2");
        // the loop runs until its client address is blocked (level max-doublings + 1)
        boolean blocked = false;
        for (int i = 0; i < 2_400 && !blocked; i++) {
            HttpResponse<String> r = send(loop, "sk_slow");
            blocked = r.body().contains("/errors/retry_loop_blocked");
            edge.time.advance(Duration.ofMillis(50));
        }
        assertThat(blocked).as("the looping client is blocked within 2 minutes").isTrue();

        // the other client of the same key: its limiter answers as usual, never the loop's block
        edge.time.advance(Duration.ofSeconds(2)); // the bucket is full again: the blocked client charges nothing
        HttpResponse<String> admitted = send(polite, "sk_slow");
        assertThat(admitted.statusCode()).isEqualTo(200);
        HttpResponse<String> denied = send(polite, "sk_slow");
        assertConsistent429(denied, "rate_limited", "burst", List.of("burst"));
        assertThat(denied.headers().firstValue("Retry-After")).hasValue("1"); // not escalated
        // and the looping client is still blocked
        assertThat(send(loop, "sk_slow").body()).contains("/errors/retry_loop_blocked");
    }

    private HttpClient client(String localAddress) {
        try {
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .localAddress(InetAddress.getByName(localAddress)).connectTimeout(Duration.ofSeconds(5)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> send(HttpClient client, String key) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(edge.uri("/v1/quotes").toString()))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + key).GET().build();
        try {
            return client.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
