package dev.sluice.wire.fuzz;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;

/** What every snapshot promises ({@code DialectRegistry.read}): no negative duration or count. */
final class Snapshots {

    private Snapshots() {
    }

    static void check(RateLimitSnapshot s) {
        nonNegative(s.retryAfter(), "retryAfter");
        s.suggestedWait().ifPresent(d -> nonNegative(d, "suggestedWait"));
        nonNegative(s.longestWait(), "longestWait");
        s.mostRestrictive();
        for (PolicySnapshot p : s.policies()) {
            nonNegative(p.resetIn(), "resetIn");
            if ((p.remaining() != null && p.remaining() < 0) || (p.quota() != null && p.quota() < 0)
                    || (p.used() != null && p.used() < 0)) {
                throw new AssertionError("negative count in " + p);
            }
        }
    }

    private static void nonNegative(Duration d, String what) {
        if (d != null && d.isNegative()) {
            throw new AssertionError(what + " is negative: " + d);
        }
    }
}
