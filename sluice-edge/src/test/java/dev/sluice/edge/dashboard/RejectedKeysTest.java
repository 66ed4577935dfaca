package dev.sluice.edge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RejectedKeysTest {

    @Test
    void withFewerKeysThanSlotsEveryCountIsExact() {
        RejectedKeys keys = new RejectedKeys(8);
        for (int i = 0; i < 10; i++) {
            keys.record("kaaaaaaaaaaaa", "free", 429);
        }
        keys.record("kbbbbbbbbbbbb", "pro", 503);
        keys.record("kbbbbbbbbbbbb", "pro", 429);
        assertThat(keys.top(10)).containsExactly(
                new RejectedKeys.Top("kaaaaaaaaaaaa", "free", 10, 0, 10, 0),
                new RejectedKeys.Top("kbbbbbbbbbbbb", "pro", 2, 0, 1, 1));
    }

    @Test
    void aFloodOfDistinctKeysNeverHoldsMoreThanCapacityEntries() {
        RejectedKeys keys = new RejectedKeys(16);
        for (int i = 0; i < 1_000; i++) {
            keys.record("kheavy", "free", 429);
        }
        for (int i = 0; i < 10_000; i++) {
            keys.record("k" + i, "free", 429);
        }
        List<RejectedKeys.Top> top = keys.top(1_000);
        assertThat(top).hasSize(16);
        // Space-Saving: a key refused more than N / capacity times (1,000 > 11,000 / 16) stays monitored
        assertThat(top.get(0)).isEqualTo(new RejectedKeys.Top("kheavy", "free", 1_000, 0, 1_000, 0));
        for (RejectedKeys.Top t : top) {
            assertThat(t.rejections() - t.error()).as("guaranteed count of " + t.keyId()).isLessThanOrEqualTo(
                    t.keyId().equals("kheavy") ? 1_000 : 1);
        }
    }

    @Test
    void aNewcomerReplacesTheSmallestCountAndInheritsItAsItsError() {
        RejectedKeys keys = new RejectedKeys(2);
        keys.record("ka", "free", 429);
        keys.record("ka", "free", 429);
        keys.record("ka", "free", 429);
        keys.record("kb", "free", 429);
        keys.record("kc", "free", 503); // replaces kb (count 1): starts at 2 with error 1
        assertThat(keys.top(5)).containsExactly(
                new RejectedKeys.Top("ka", "free", 3, 0, 3, 0),
                new RejectedKeys.Top("kc", "free", 2, 1, 0, 1));
    }

    @Test
    void topCutsAtNHighestFirstTiesByKeyId() {
        RejectedKeys keys = new RejectedKeys(8);
        keys.record("kz", "free", 429);
        keys.record("ky", "free", 429);
        keys.record("kx", "free", 429);
        keys.record("kx", "free", 429);
        assertThat(keys.top(2)).extracting(RejectedKeys.Top::keyId).containsExactly("kx", "ky");
    }
}
