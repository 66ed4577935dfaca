package dev.sluice.client;

/**
 * Admission priorities (SPEC §5.2): the two classes of the contract. Interactive calls go first and
 * may evict the newest background call from a full queue; FIFO within a class. With aging on
 * ({@link AdmissionConfig#agingStep()}, R21) a waiting background call is promoted after one step.
 */
public enum Priority {

    /** Someone is waiting for the answer; evicts the newest background call from a full queue. */
    INTERACTIVE,

    /** Work nobody watches; shed first. */
    BACKGROUND;

    /** The admission queue's level: 0 for {@link #INTERACTIVE}, 1 for {@link #BACKGROUND}; lower goes first. */
    public int level() {
        return ordinal();
    }
}
