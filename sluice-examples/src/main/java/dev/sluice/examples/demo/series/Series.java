package dev.sluice.examples.demo.series;

/**
 * The per-second series of a demo run. Every HTTP attempt the fleet sends is counted once in
 * {@link #OFFERED} and once in exactly one outcome ({@link #ADMITTED} .. {@link #OTHER}), both in
 * the second it was sent, so that per second {@code offered = admitted + rate_limited +
 * quota_exhausted + unavailable + other} once every attempt is answered. {@link #CALLS} counts the
 * logical calls in the second they were made, and {@link #SUCCEEDED}, {@link #LOCAL_DROPS},
 * {@link #BUDGET_EXHAUSTED} and {@link #LOCAL_QUOTA} how those calls ended, in the same second;
 * {@link #RETRIES} counts attempts that repeated a call, in the second they were sent.
 */
public enum Series {
    /** HTTP attempts sent to the edge (first attempts and retries). */
    OFFERED("offered", "offered", "HTTP attempts sent to the edge, retries included"),
    /** Attempts answered 2xx: the edge admitted them and Shiplane served them. */
    ADMITTED("admitted", "admitted", "answered 2xx (admitted by the edge, served by Shiplane)"),
    /** 429 {@code rate_limited}: a burst policy said no (SPEC §3.4). */
    RATE_LIMITED("rate_limited", "429 rate", "429 rate_limited: a burst policy said no"),
    /** 429 {@code quota_exhausted}: a daily quota said no (SPEC §3.4). */
    QUOTA_EXHAUSTED("quota_exhausted", "429 quota", "429 quota_exhausted: a daily quota is spent"),
    /** 503 from the upstream's blip (passed through) or from the edge's shedder. */
    UNAVAILABLE("unavailable", "503", "503: Shiplane's blip, or the edge shedding"),
    /** Any other status, and attempts that got no response (connection errors, cancelled at stop). */
    OTHER("other", "other", "any other status, or no response at all"),
    /** Attempts that were retries of a call (a subset of offered). */
    RETRIES("retries", "retries", "attempts that were retries (part of offered)"),
    /** Calls the SDK's adaptive throttle dropped before they reached the network (SPEC §4.5), by the call's second. */
    LOCAL_DROPS("local_drops", "drops", "calls the SDK dropped locally (adaptive throttling)"),
    /** Calls whose retry the SDK's retry budget refused (SPEC §4.2), by the call's second. */
    BUDGET_EXHAUSTED("budget_exhausted", "budget-x",
            "calls whose retry the SDK's retry budget refused (no room before their deadline)"),
    /** Calls the SDK failed at once, without a request, because it knew the quota was spent (SPEC §4.2). */
    LOCAL_QUOTA("local_quota", "sdk-quota", "calls the SDK failed at once: the quota is known spent until its reset"),
    /** Calls the fleet made (logical calls, not attempts), in the second they were made. */
    CALLS("calls", "calls", "calls made (what the fleet's users asked for; one call may make several attempts)"),
    /** Calls made in that second that ended in a 2xx, whenever they ended. */
    SUCCEEDED("succeeded", "ok-calls", "calls made in that second that succeeded, however long they took");

    private final String id;
    private final String column;
    private final String meaning;

    Series(String id, String column, String meaning) {
        this.id = id;
        this.column = column;
        this.meaning = meaning;
    }

    /** A stable snake_case name (report data, CSV headers). */
    public String id() {
        return id;
    }

    /** The short heading of the live table. */
    public String column() {
        return column;
    }

    /** One line on what it counts. */
    public String meaning() {
        return meaning;
    }

    /** Whether only a fleet on the SDK produces this series (the table hides it otherwise). */
    public boolean sdkOnly() {
        return this == LOCAL_DROPS || this == BUDGET_EXHAUSTED || this == LOCAL_QUOTA;
    }

    /** Whether this series is an attempt outcome (they add up to {@link #OFFERED}). */
    public boolean isOutcome() {
        return ordinal() >= ADMITTED.ordinal() && ordinal() <= OTHER.ordinal();
    }
}
