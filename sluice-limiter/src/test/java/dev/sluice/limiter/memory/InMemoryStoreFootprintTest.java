package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.time.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * Measures the in-memory store's heap footprint per key with JOL (a memory figure, not a timing):
 * the state objects of a key, and the whole store per key (state + map entry + table slot, without
 * the key String the caller owns). Prints both; asserts the state stays within 64 bytes per policy.
 */
class InMemoryStoreFootprintTest {

    static final int KEYS = 20_000;

    @Test
    void stateIsAtMost64BytesPerKeyPerPolicy() {
        Plan burst = Plan.of("b", BurstPolicy.of("burst", 20, 2));
        Plan free = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));

        Footprint one = measure(burst);
        Footprint two = measure(free);

        System.out.printf("in-memory store, 1 policy : state %d B/key, store %.1f B/key (excl. key String)%n",
                one.stateBytesPerKey, one.storeBytesPerKey);
        System.out.printf("in-memory store, 2 policies: state %d B/key, store %.1f B/key (excl. key String)%n",
                two.stateBytesPerKey, two.storeBytesPerKey);
        assertThat(one.stateBytesPerKey).isLessThanOrEqualTo(64);
        assertThat(two.stateBytesPerKey).isLessThanOrEqualTo(2 * 64);
    }

    private record Footprint(long stateBytesPerKey, double storeBytesPerKey) {}

    private static Footprint measure(Plan plan) {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        InMemoryLimiterStore store = new InMemoryLimiterStore(time, Integer.MAX_VALUE);
        List<String> keys = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            String key = "sk_live_" + i;
            keys.add(key);
            store.decide(key, plan, Costs.ONE);
        }
        GraphLayout whole = GraphLayout.parseInstance(store);
        GraphLayout keyStrings = GraphLayout.parseInstance(keys.toArray());
        GraphLayout shared = GraphLayout.parseInstance(plan, time);
        long keyArray = 16 + 4L * KEYS; // the Object[] that held the keys for measuring
        double perKey = (whole.totalSize() - (keyStrings.totalSize() - keyArray) - shared.totalSize())
                / (double) KEYS;

        // the state of one key: everything reachable from its map value, less the shared plan
        Object oneState = store.stateObjectForMeasurement(keys.get(0));
        long state = GraphLayout.parseInstance(oneState).subtract(GraphLayout.parseInstance(plan)).totalSize();
        return new Footprint(state, perKey);
    }
}
