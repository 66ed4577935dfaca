package dev.sluice.wire.sf;

/**
 * A member of a List or a value of a Dictionary (RFC 9651 §3.1, §3.2): either an {@link Item} or
 * an {@link InnerList}, each with its own {@link Parameters}. Closed, so a {@code switch} over it
 * is exhaustive. Implementations are immutable and thread-safe.
 */
public sealed interface Member permits Item, InnerList {

    /** The parameters of this member; empty when it has none, never null. */
    Parameters parameters();
}
