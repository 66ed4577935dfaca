package dev.sluice.limiter;

/**
 * Which {@link Decision} a store would have returned, for the calls that hand their values to a
 * {@link PolicyStateSink} instead of building one.
 */
public enum DecisionKind {
    /** {@link Allowed}: every policy admitted and was charged. */
    ALLOWED,
    /** {@link Denied}: some policy refused; nothing was charged. */
    DENIED,
    /** {@link CostExceedsBurst}: the cost exceeds a policy's {@code q}; nothing was read or charged. */
    COST_EXCEEDS_BURST
}
