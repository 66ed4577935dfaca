package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.Snapshots;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * SPEC §4.6: pace a little under the documented number (90 %), so that the README's example
 * ({@code PacerConfig.documented(10, 20)}) sees no 429 from the edge's Free plan (burst 20 per
 * 2 s = 10/s) even when the first burst reaches the server late (new connections on a cold
 * process): 90 % of the rate <em>and</em> of the burst, and a cold start's refill counted from the
 * first answer (see {@code Pacer}). Arrival delays are simulated, seeded; nothing sleeps.
 */
class PacingMarginTest {

    private static final long MILLI = 1_000_000L;

    /**
     * The edge's Free-plan burst policy as a GCRA: 10/s (one per 100 ms), burst 20; with the
     * {@code "burst";r;t} fields the edge sends, or without any (an API that only documents its limit).
     */
    static final class FreePlanBurst {
        private static final long INTERVAL = 100 * MILLI;
        private static final long TOLERANCE = 19 * INTERVAL;
        private final boolean headers;
        private long tat = Long.MIN_VALUE;
        int rejected;

        FreePlanBurst(boolean headers) {
            this.headers = headers;
        }

        Answer decide(long now) {
            long start = tat == Long.MIN_VALUE ? now : Math.max(tat, now);
            if (start - now > TOLERANCE) {
                rejected++;
                long waitNanos = start - now - TOLERANCE;
                long ra = Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
                return response(headers ? Snapshots.rateLimited(Duration.ofSeconds(ra),
                        Snapshots.burst("burst", 20, 2, 0, Duration.ofSeconds(ra)))
                        : Snapshots.rateLimited(Duration.ofSeconds(ra)));
            }
            tat = start + INTERVAL;
            long remaining = Math.floorDiv(TOLERANCE - (tat - now), INTERVAL) + 1;
            long resetSeconds = Math.max(1, (tat - now + 999_999_999L) / 1_000_000_000L);
            return response(headers
                    ? Snapshots.ok(Snapshots.burst("burst", 20, 2, remaining, Duration.ofSeconds(resetSeconds)))
                    : Snapshots.ok());
        }
    }

    /**
     * 100 calls opened at once by one client. The calls started before {@code coldMillis} open new
     * connections and reach the edge {@code lateMinMillis}–{@code lateMaxMillis} later; later calls
     * reuse pooled connections and arrive within 5 ms. The edge's bucket, full and capped while it
     * waits, starts refilling only when the late first burst lands.
     *
     * @return the 429s the edge answered
     */
    private static int run(PacerConfig pacer, boolean headers, long coldMillis, long lateMinMillis,
            long lateMaxMillis, long seed) {
        FreePlanBurst edge = new FreePlanBurst(headers);
        SplittableRandom travel = new SplittableRandom(seed ^ 0x5EED);
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withPacer(pacer), ClientListener.none(), seed)
                .latency(Duration.ofMillis(20))
                .arrivalDelay(s -> Duration.ofNanos(s.atNanos() < coldMillis * MILLI
                        ? (lateMinMillis + travel.nextLong(lateMaxMillis - lateMinMillis)) * MILLI
                        : travel.nextLong(5 * MILLI)))
                .server(s -> edge.decide(s.atNanos()));
        for (int i = 0; i < 100; i++) {
            h.open(CallSpec.of("POST", "api.test"));
        }
        h.run(Duration.ofMinutes(2));
        assertThat(h.results).hasSize(100);
        return edge.rejected;
    }

    /** Runs with a 429, out of 20 seeded runs. */
    private static int runsWith429(PacerConfig pacer, boolean headers, long coldMillis, long lateMin, long lateMax) {
        int runs = 0;
        for (int seed = 0; seed < 20; seed++) {
            if (run(pacer, headers, coldMillis, lateMin, lateMax, seed) > 0) {
                runs++;
            }
        }
        return runs;
    }

    @Test
    void theReadmePacerMeetsNo429FromTheFreePlanWhenTheFirstBurstArrivesLate() {
        // first burst 100–200 ms late: paced at 9/s into a bucket of 18, the 2-token margin alone
        // covers up to 222 ms. Before the burst got its margin (9/s, bucket 20) all 20 runs met a
        // 429 without RateLimit fields.
        assertThat(runsWith429(PacerConfig.documented(10, 20), false, 300, 100, 200)).as("without RateLimit fields").isZero();
        assertThat(runsWith429(PacerConfig.documented(10, 20), true, 300, 100, 200)).as("following the edge's fields").isZero();
    }

    @Test
    void aColdStartWhoseFirstBurstLandsASecondLateMeetsNo429() {
        // 600–1000 ms, as measured for the first calls of a fresh JVM against the edge on loopback:
        // no margin covers that; the refill counted from the first answer does
        assertThat(runsWith429(PacerConfig.documented(10, 20), false, 1200, 600, 1000)).isZero();
        assertThat(runsWith429(PacerConfig.documented(10, 20), true, 1200, 600, 1000)).isZero();
    }

    @Test
    void withoutPacingTheSameArrivalsMeet429s() {
        // the control: nothing documented, no fields to follow; the limit does say no
        assertThat(runsWith429(PacerConfig.defaults(), false, 300, 100, 200)).isEqualTo(20);
    }
}
