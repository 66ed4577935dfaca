package dev.sluice.client;

/**
 * Admission priorities (SPEC §5.2): lower numbers go first; FIFO within a level. SPEC §5 uses two
 * levels; any level {@code >= 0} is accepted, which the optional aging of R21 needs.
 */
public final class Priority {

    /** Someone is waiting for the answer; evicts the newest background call from a full queue. */
    public static final int INTERACTIVE = 0;

    /** Work nobody watches; shed first. */
    public static final int BACKGROUND = 1;

    private Priority() {
    }
}
