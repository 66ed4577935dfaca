package dev.sluice.limiter;

import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.limiter.quota.QuotaCounter;
import java.util.Objects;

/**
 * A calendar quota (SPEC §1 "quota policy"): {@code q} units per window; the whole quota comes
 * back at once at the window's end (daily: 00:00 UTC; monthly: the key's renewal day, 00:00 UTC).
 * See {@link CalendarWindow} for the boundaries and for what a wall-clock step does.
 *
 * @param name the policy name (printable ASCII, not blank)
 * @param quota {@code q}, units per window, 1 .. {@value dev.sluice.limiter.quota.QuotaCounter#MAX_USED}
 * @param window the calendar window
 * @param unit what one unit counts (requests or content-bytes)
 * @param partitionKey the {@code pk} to emit, or {@code null}
 */
public record QuotaPolicy(String name, long quota, CalendarWindow window, QuotaUnit unit, String partitionKey)
        implements Policy {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range
     */
    public QuotaPolicy {
        Policy.requireCommon(name, quota, unit);
        if (quota > QuotaCounter.MAX_USED) {
            throw new IllegalArgumentException("q: must be <= " + QuotaCounter.MAX_USED
                    + ", was " + quota + " (policy " + name + ")");
        }
        Objects.requireNonNull(window, "window");
    }

    /** A request-counting daily quota (resets at 00:00 UTC) without partition key. */
    public static QuotaPolicy daily(String name, long quota) {
        return new QuotaPolicy(name, quota, CalendarWindow.daily(), QuotaUnit.REQUESTS, null);
    }

    /** A request-counting monthly quota renewing on {@code anchorDay} (1..31, clamped to the month). */
    public static QuotaPolicy monthly(String name, long quota, int anchorDay) {
        return new QuotaPolicy(name, quota, CalendarWindow.monthly(anchorDay), QuotaUnit.REQUESTS, null);
    }

    /** The window's nominal length in seconds: the {@code w} of {@code RateLimit-Policy}. */
    @Override
    public long windowSeconds() {
        return window.nominalSeconds();
    }

    /** This policy with its monthly window renewing on {@code anchorDay}; daily windows are unchanged. */
    public QuotaPolicy withAnchorDay(int anchorDay) {
        CalendarWindow moved = window.withAnchorDay(anchorDay);
        return moved.equals(window) ? this : new QuotaPolicy(name, quota, moved, unit, partitionKey);
    }
}
