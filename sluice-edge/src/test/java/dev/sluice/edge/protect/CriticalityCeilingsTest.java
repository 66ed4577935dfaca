package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.route.Criticality;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shedder's ceilings against the configuration docs (SPEC §3.9; sluice-edge README "Protection
 * stages": {@code CRITICAL_PLUS} L, {@code CRITICAL} L(1−r/2), {@code SHEDDABLE_PLUS} L(1−r),
 * {@code SHEDDABLE} L(1−3r/2), rounded down): the reserve is bounded both ways, for every limit and share.
 */
@ExtendWith(NoLeaks.class)
class CriticalityCeilingsTest {

    private static int c(Criticality level, int limit, int reservedPercent) {
        return CriticalityShedder.ceiling(level, limit, reservedPercent);
    }

    @Test
    void theDocumentedNumbersForTheDefaultPoolOf64And20PercentReserved() {
        assertThat(c(Criticality.CRITICAL_PLUS, 64, 20)).isEqualTo(64);
        assertThat(c(Criticality.CRITICAL, 64, 20)).isEqualTo(57);       // 57.6
        assertThat(c(Criticality.SHEDDABLE_PLUS, 64, 20)).isEqualTo(51); // 51.2
        assertThat(c(Criticality.SHEDDABLE, 64, 20)).isEqualTo(44);      // 44.8
    }

    @Test
    void sheddableTrafficNeverReachesTheReserveAndCriticalNeverTakesMoreThanItsCeiling() {
        for (int limit = 1; limit <= 300; limit++) {
            for (int r = 0; r <= 100; r++) {
                int cp = c(Criticality.CRITICAL_PLUS, limit, r);
                int crit = c(Criticality.CRITICAL, limit, r);
                int sp = c(Criticality.SHEDDABLE_PLUS, limit, r);
                int s = c(Criticality.SHEDDABLE, limit, r);
                String at = "limit " + limit + ", reserved " + r + " %";
                assertThat(cp).as(at).isEqualTo(limit);
                assertThat(crit).as(at).isLessThanOrEqualTo(cp).isGreaterThanOrEqualTo(sp);
                assertThat(sp).as(at).isGreaterThanOrEqualTo(s).isGreaterThanOrEqualTo(0);
                // the reserve r·L is only CRITICAL*'s: SHEDDABLE_PLUS + r·L ≤ L, in integers
                assertThat(100L * sp + (long) r * limit).as(at).isLessThanOrEqualTo(100L * limit);
                // CRITICAL stays out of CRITICAL_PLUS's half of the reserve unless that would leave it nothing
                if (crit > 1) {
                    assertThat(200L * crit + (long) r * limit).as(at).isLessThanOrEqualTo(200L * limit);
                }
                // the default criticality is never shut out entirely: one request may always be in flight
                assertThat(crit).as(at).isGreaterThanOrEqualTo(1);
            }
        }
    }

    @Test
    void aLimitOfOneStillServesTheDefaultCriticalityOverHttp() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start("""
                        admin: off
                        shedding: { limit: 1 }
                        plans:
                          free:
                            policies:
                              - { name: burst, kind: burst, q: 20, w: 2 }
                        keys:
                          sk_1: free
                        routes:
                          - { method: GET, path: /v1/labels }
                          - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
                        """, upstream, "2026-11-30T12:00:00Z")) {
            HttpResponse<String> critical = edge.get("/v1/labels", "sk_1");
            HttpResponse<String> sheddable = edge.get("/v1/quotes", "sk_1");

            assertThat(critical.statusCode()).isEqualTo(200); // CRITICAL (the default), nothing else in flight
            assertThat(sheddable.statusCode()).isEqualTo(503); // 20 % of 1 slot rounds up: all reserved
            assertThat(sheddable.body()).contains("/errors/overloaded");
        }
    }
}
