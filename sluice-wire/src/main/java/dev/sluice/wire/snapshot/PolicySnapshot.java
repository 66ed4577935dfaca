package dev.sluice.wire.snapshot;

import java.time.Duration;

/**
 * One limit as a response reported it, normalised from any dialect (SPEC §2.6). Every component
 * but {@code kind} may be {@code null}: dialects report different subsets.
 *
 * @param name the policy name ({@code "burst"}, GitHub's resource {@code "core"}, OpenAI's
 *     {@code "requests"} / {@code "tokens"}); {@code null} when the dialect names none
 * @param quota {@code q}: units the window allows
 * @param windowSeconds {@code w}: the window length in seconds
 * @param remaining {@code r}: units left now, never negative
 * @param resetIn {@code t}: time until the window resets, relative to the response's own time
 *     (its {@code Date} when present), never negative; millisecond precision
 * @param quotaUnit {@code qu}: {@code "requests"}, {@code "content-bytes"},
 *     {@code "concurrent-requests"}, a vendor unit such as {@code "tokens"}, or {@code null}
 * @param kind whether spending this policy out clears in seconds ({@link PolicyKind#BURST}) or at
 *     a calendar reset ({@link PolicyKind#QUOTA}); {@link PolicyKind#UNKNOWN} when the response
 *     does not say
 */
public record PolicySnapshot(
        String name,
        Long quota,
        Long windowSeconds,
        Long remaining,
        Duration resetIn,
        String quotaUnit,
        PolicyKind kind) {

    public PolicySnapshot {
        if (kind == null) {
            kind = PolicyKind.UNKNOWN;
        }
        if (remaining != null && remaining < 0) {
            remaining = 0L;
        }
        if (resetIn != null && resetIn.isNegative()) {
            resetIn = Duration.ZERO;
        }
    }

    /** Whether a spent policy of this kind clears in seconds or at a window reset. */
    public enum PolicyKind {
        BURST,
        QUOTA,
        UNKNOWN
    }
}
