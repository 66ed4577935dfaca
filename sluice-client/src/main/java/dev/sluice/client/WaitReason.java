package dev.sluice.client;

/** Why a call waited (SPEC §4.3, §4.6, §5). */
public enum WaitReason {
    /** A retry after the server's hint (Retry-After, or a spent policy's reset) plus jitter. */
    HINT,
    /** A retry after full-jitter backoff: the server gave no hint. */
    JITTER,
    /** In the admission queue: for a pacer token, a free slot, or a 429's penalty to pass. */
    PACER
}
