package dev.sluice.client;

/** Why the admission queue shed a call; shed calls are counted by these reasons (SPEC §5.5). */
public enum ShedReason {
    /** The deadline had already passed, or could not be met, when the call was submitted. */
    DEADLINE_AT_SUBMIT("deadline_at_submit"),
    /** The deadline passed while the call waited in the queue; it was never started. */
    DEADLINE_AT_DEQUEUE("deadline_at_dequeue"),
    /** The queue was full and held nothing less urgent to evict. */
    FULL("full"),
    /** A more urgent call arrived at a full queue and took this one's place. */
    EVICTED("evicted");

    private final String wireName;

    ShedReason(String wireName) {
        this.wireName = wireName;
    }

    /** Lower-case name for metrics tags. */
    public String wireName() {
        return wireName;
    }
}
