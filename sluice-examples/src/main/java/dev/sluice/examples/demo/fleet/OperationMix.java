package dev.sluice.examples.demo.fleet;

import java.util.random.RandomGenerator;

/**
 * How often a virtual client calls each {@link Operation}, in percent (they add up to 100).
 *
 * @param buyLabelPercent share of {@code POST /v1/labels}
 * @param quotePercent share of {@code GET /v1/quotes}
 * @param batchPercent share of {@code POST /v1/labels:batch}
 */
public record OperationMix(int buyLabelPercent, int quotePercent, int batchPercent) {

    public OperationMix {
        if (buyLabelPercent < 0 || quotePercent < 0 || batchPercent < 0
                || buyLabelPercent + quotePercent + batchPercent != 100) {
            throw new IllegalArgumentException("shares must be >= 0 and add up to 100: "
                    + buyLabelPercent + " + " + quotePercent + " + " + batchPercent);
        }
    }

    /** Mostly label buys and quotes: 50 % labels, 48 % quotes, 2 % batches of ten. */
    public static OperationMix shiplane() {
        return new OperationMix(50, 48, 2);
    }

    /** One operation drawn from this mix. */
    public Operation pick(RandomGenerator random) {
        int p = random.nextInt(100);
        if (p < buyLabelPercent) {
            return Operation.BUY_LABEL;
        }
        return p < buyLabelPercent + quotePercent ? Operation.QUOTE : Operation.BUY_BATCH;
    }
}
