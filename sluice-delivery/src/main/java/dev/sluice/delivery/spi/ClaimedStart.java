package dev.sluice.delivery.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One row of {@link DeliveryStore#claimAndStart}: the claim and, when the caller's check let it
 * start, the answer of its start ({@link AttemptStart}); empty when the claim is the caller's to
 * settle without a token (an interrupted attempt to a destination that cannot deduplicate, an
 * event past its maximum age: SPEC §6.2).
 *
 * @param claim the claimed row, leased to the caller
 * @param start the start's answer, or empty when it was not started
 */
public record ClaimedStart(Claim claim, Optional<AttemptStart> start) {
    public ClaimedStart {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(start, "start");
    }

    /**
     * Pairs {@code claims} with the answers of starting those {@code startable} accepts (for
     * implementations of {@link DeliveryStore#claimAndStart}).
     *
     * @param claims the claimed rows, in order
     * @param startable which to start
     * @param start starts the accepted claims, one answer each, in their order
     * @return one entry per claim, in order
     * @throws IllegalStateException if {@code start} answers a different number of claims
     */
    public static List<ClaimedStart> pair(List<Claim> claims, Predicate<Claim> startable,
            Function<List<Claim>, List<AttemptStart>> start) {
        if (claims.isEmpty()) {
            return List.of();
        }
        List<Claim> toStart = new ArrayList<>(claims.size());
        for (Claim c : claims) {
            if (startable.test(c)) {
                toStart.add(c);
            }
        }
        List<AttemptStart> starts = toStart.isEmpty() ? List.of() : start.apply(toStart);
        if (starts.size() != toStart.size()) {
            throw new IllegalStateException(toStart.size() + " claims started, " + starts.size() + " answers");
        }
        List<ClaimedStart> out = new ArrayList<>(claims.size());
        int next = 0;
        for (Claim c : claims) {
            boolean started = next < toStart.size() && toStart.get(next) == c;
            out.add(new ClaimedStart(c, started ? Optional.of(starts.get(next++)) : Optional.empty()));
        }
        return out;
    }
}
