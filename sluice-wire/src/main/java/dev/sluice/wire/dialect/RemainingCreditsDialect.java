package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.Optional;

/**
 * The {@code x-api-remaining-credits} marker (SPEC §2.6): prepaid credits left. A policy named
 * {@code credits}, a quota policy; at 0 a refusal (400, 402, 403, 422, 429) is {@code quota_exhausted} (topping up,
 * not waiting, clears it). Id {@code credits}.
 */
public final class RemainingCreditsDialect implements Dialect {

    public static final RemainingCreditsDialect INSTANCE = new RemainingCreditsDialect();

    private RemainingCreditsDialect() {
    }

    @Override
    public String id() {
        return "credits";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (!in.has("x-api-remaining-credits")) {
            return Optional.empty();
        }
        Long remaining = in.count("x-api-remaining-credits");
        DialectReading.Builder r = DialectReading.builder();
        r.policy(PolicySnapshot.builder()
                .name("credits")
                .remaining(remaining)
                .quotaUnit("credits")
                .kind(PolicySnapshot.PolicyKind.QUOTA)
                .build());
        if (remaining != null && remaining == 0 && isRefusal(in.status())) {
            r.outcome(Outcome.QUOTA_EXHAUSTED).violatedPolicy("credits");
        }
        return Optional.of(r.build());
    }

    /** The statuses an API uses to refuse for want of credit (402, 403, 429, and 400/422). */
    private static boolean isRefusal(int status) {
        return status == 400 || status == 402 || status == 403 || status == 422 || status == 429;
    }
}
