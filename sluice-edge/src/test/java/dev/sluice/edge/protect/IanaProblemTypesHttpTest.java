package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.4 with {@code problem.types: iana}: every rejection the edge writes for a limit, an overload or a
 * retry loop carries the draft-11 registered problem type (draft-ietf-httpapi-ratelimit-headers-11 §10.4),
 * over real HTTP on a fake clock.
 */
@ExtendWith(NoLeaks.class)
class IanaProblemTypesHttpTest {

    private static final String IANA = "\"type\":\"https://iana.org/assignments/http-problem-types#";
    private static final String CONFIG = """
            problem: { base-uri: https://docs.shiplane.example, types: iana }
            # limit 2, all of it reserved: SHEDDABLE may never take a slot, CRITICAL one
            shedding: { mode: static, limit: 2, reserved-percent: 100 }
            escalation: { min-requests: 3, max-doublings: 0, block: 120s }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 2, w: 1 }
                  - { name: daily, kind: quota, q: 6, window: daily }
            keys:
              sk_burst: free
              sk_quota: free
              sk_loop: free
            routes:
              - { method: GET, path: /v1/labels, criticality: CRITICAL }
              - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
            """;

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(CONFIG, upstream, "2026-11-30T12:00:00Z");

    @Test
    void aBurstDenialIsQuotaExceeded() {
        edge.exhaustBurst("sk_burst");
        HttpResponse<String> r = edge.get("/v1/labels", "sk_burst");

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).contains(IANA + "quota-exceeded\"").contains("\"violated-policies\":[\"burst\"]");
    }

    @Test
    void aQuotaDenialIsQuotaExceededToo() {
        edge.spend("sk_quota", 6);
        HttpResponse<String> r = edge.get("/v1/labels", "sk_quota");

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).contains(IANA + "quota-exceeded\"").contains("\"violated-policies\":[\"daily\"]");
    }

    @Test
    void aShed503IsTemporaryReducedCapacity() {
        HttpResponse<String> r = edge.get("/v1/quotes", "sk_burst");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(r.body()).contains(IANA + "temporary-reduced-capacity\"");
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void theRetryLoopBlockIsAbnormalUsageDetected() {
        edge.exhaustBurst("sk_loop");
        HttpResponse<String> r = null;
        // the clock stands still: every request arrives inside the key's Retry-After window
        for (int i = 0; i < 10 && (r == null || !r.body().contains("abnormal-usage-detected")); i++) {
            r = edge.get("/v1/labels", "sk_loop");
            assertThat(r.statusCode()).isEqualTo(429);
        }
        assertThat(r.body()).contains(IANA + "abnormal-usage-detected\"");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("120"); // the block's length, honestly
        assertThat(edge.server.escalation().level("sk_loop")).isEqualTo(1); // above max-doublings 0: blocked
        assertThat(upstream.requests()).isZero();
    }
}
