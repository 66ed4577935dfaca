package dev.sluice.limiter.gcra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.ManualTimeSource;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Differential test against a peer: on seeded random traces, Sluice's burst policy and Bucket4j
 * (capacity q, greedy refill of q tokens per w, driven by the same fake clock) make the same
 * allow/deny decision for every request, report the same remaining tokens, and agree on the wait.
 *
 * <p>No rounding allowance is needed: both are exact token buckets (Bucket4j keeps the refill's
 * remainder, Sluice scales time so the emission interval is a whole number of ticks), and whole
 * millisecond timestamps are whole microseconds. The only place Sluice rounds is the wait, which it
 * reports in whole microseconds rounded up (Bucket4j in nanoseconds): up to 1 µs later, never
 * earlier, so honouring it always succeeds.
 */
class GcraBucket4jDifferentialTest {

    static final int REQUESTS = 20_000;
    static final int KEYS = 5;

    /** Offered load over the refill rate: a little above 1, so both answers are frequent. */
    static final double LOAD = 1.3;

    @ParameterizedTest(name = "q={0} w={1}s, seed {2}")
    @CsvSource({
        "20, 2, 1",       // SPEC §2.1 burst: 10/s, burst 20
        "3, 1, 2",        // emission interval 333.33 ms: exact only with scaled ticks
        "7, 3, 3",        // 428.57 ms
        "60, 60, 4",      // R18's bucket
        "10, 1, 5",
        "13, 5, 6",       // 384.6 ms
        "1000, 10, 7",    // 10 ms per token
        "9, 7, 9",        // 777.78 ms
        "5, 86400, 8",    // slow refill: 4.8 h per token
    })
    void sluiceAndBucket4jDecideAlike(long q, long w, long seed) {
        ManualTimeSource time = new ManualTimeSource(java.time.Instant.parse("2026-11-30T18:00:00Z"), 0);
        InMemoryLimiterStore store = new InMemoryLimiterStore(time);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", q, w));
        TimeMeter meter = new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return time.nanoTime();
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        };
        Map<String, Bucket> peers = new HashMap<>();
        SplittableRandom random = new SplittableRandom(seed);
        double meanCost = (1 + Math.min(3, q)) / 2.0;
        double meanGapMillis = 1000.0 * meanCost * w / (LOAD * q) / KEYS;
        long maxGapMillis = Math.max(1, Math.round(meanGapMillis * 4 / 3));
        int allowed = 0;
        int denied = 0;
        for (int i = 0; i < REQUESTS; i++) {
            // a quarter of the requests arrive together with the previous one (bursts); the rest spread
            // so that the mean gap offers LOAD times the refill rate
            if (random.nextInt(4) != 0) {
                time.advance(Duration.ofMillis(random.nextLong(0, 2 * maxGapMillis + 1)));
            }
            String key = "k" + random.nextInt(KEYS);
            long cost = random.nextInt(1, (int) Math.min(3, q) + 1);
            Bucket peer = peers.computeIfAbsent(key, k -> Bucket.builder()
                    .addLimit(limit -> limit.capacity(q).refillGreedy(q, Duration.ofSeconds(w)))
                    .withCustomTimePrecision(meter)
                    .build());

            ConsumptionProbe probe = peer.tryConsumeAndReturnRemaining(cost);
            Decision decision = store.decide(key, plan, Costs.requests(cost));

            String where = "request " + i + " (key " + key + ", cost " + cost + ", t=" + time.nanoTime() + " ns)";
            assertThat(decision instanceof Allowed).as(where).isEqualTo(probe.isConsumed());
            if (decision instanceof Allowed a) {
                allowed++;
                assertThat(a.states().get(0).remaining()).as(where).isEqualTo(probe.getRemainingTokens());
            } else {
                denied++;
                Denied d = (Denied) decision;
                long peerWait = probe.getNanosToWaitForRefill();
                long ours = d.exactWait().toNanos();
                assertThat(ours).as(where).isBetween(peerWait, peerWait + 999);
            }
        }
        System.out.printf("differential q=%d w=%d: %d requests, %d allowed, %d denied, 0 disagreements%n",
                q, w, REQUESTS, allowed, denied);
        // the trace must exercise both answers to mean anything
        assertThat(allowed).isGreaterThan(REQUESTS / 10);
        assertThat(denied).isGreaterThan(REQUESTS / 20);
    }
}
