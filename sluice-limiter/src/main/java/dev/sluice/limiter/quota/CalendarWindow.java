package dev.sluice.limiter.quota;

import java.time.Instant;
import java.time.LocalDate;

/**
 * The calendar windows of quota policies (SPEC §1): daily, resetting at 00:00 UTC, and monthly,
 * resetting at 00:00 UTC on an anchor day (the key's renewal day, clamped to the month's length:
 * anchor 31 renews on 30 April and on 28 or 29 February).
 *
 * <p>Windows are numbered by a <em>window id</em> (daily: days since 1970-01-01; monthly: months
 * since January 1970 of the window's start). {@link #startEpochSecond(long)} is the <b>one</b>
 * function that defines the boundaries: {@link #windowIdAt(long)} (which decides a reset) and
 * {@link #endEpochSecond(long)} (which gives {@code t} and {@code reset_at}) are both built on it,
 * so a reset and the reported reset time cannot disagree.
 *
 * <p>Windows follow the UTC wall clock ({@code TimeSource.now()}). What a store does when that clock
 * steps backwards is in {@link QuotaCounter}: it never hands out a second window's worth.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface CalendarWindow permits CalendarWindow.Daily, CalendarWindow.Monthly {

    long SECONDS_PER_DAY = 86_400;

    /** The daily window, 00:00 UTC to 00:00 UTC. */
    static CalendarWindow daily() {
        return Daily.INSTANCE;
    }

    /**
     * The monthly window renewing at 00:00 UTC on {@code anchorDay}.
     *
     * @throws IllegalArgumentException unless {@code 1 ≤ anchorDay ≤ 31}
     */
    static CalendarWindow monthly(int anchorDay) {
        return new Monthly(anchorDay);
    }

    /** The first instant (epoch seconds, UTC) of window {@code windowId}: the boundary function. */
    long startEpochSecond(long windowId);

    /** The id of the window containing {@code epochSecond}: {@code start(id) ≤ s < start(id + 1)}. */
    long windowIdAt(long epochSecond);

    /** {@code w}: the nominal window length for {@code RateLimit-Policy} (daily 86,400; monthly 30 days). */
    long nominalSeconds();

    /** The configuration token: {@code daily} or {@code monthly}. */
    String wireName();

    /** This window renewing on {@code anchorDay}; the daily window has no anchor and returns itself. */
    CalendarWindow withAnchorDay(int anchorDay);

    /** The end of window {@code windowId} (epoch seconds): the start of the next one. */
    default long endEpochSecond(long windowId) {
        return startEpochSecond(windowId + 1);
    }

    /** The id of the window containing {@code instant}. */
    default long windowIdAt(Instant instant) {
        return windowIdAt(instant.getEpochSecond());
    }

    /**
     * Whole seconds from {@code instant} to the end of window {@code windowId}, rounded up (SPEC §1),
     * never negative. At 18:00:00 UTC the daily window ends in exactly 21,600 s (SPEC §2.1).
     */
    default long secondsUntilEnd(long windowId, Instant instant) {
        // end is a whole second, so the ceiling of (end − instant) is end − floor(instant)
        return Math.max(0, endEpochSecond(windowId) - instant.getEpochSecond());
    }

    /** Daily at 00:00 UTC. */
    enum Daily implements CalendarWindow {
        INSTANCE;

        @Override
        public long startEpochSecond(long windowId) {
            return windowId * SECONDS_PER_DAY;
        }

        @Override
        public long windowIdAt(long epochSecond) {
            return Math.floorDiv(epochSecond, SECONDS_PER_DAY);
        }

        @Override
        public long nominalSeconds() {
            return SECONDS_PER_DAY;
        }

        @Override
        public String wireName() {
            return "daily";
        }

        @Override
        public CalendarWindow withAnchorDay(int anchorDay) {
            return this;
        }

        @Override
        public String toString() {
            return "daily";
        }
    }

    /**
     * Monthly at 00:00 UTC on {@code anchorDay}, clamped to the month's length.
     *
     * @param anchorDay the renewal day of the month, 1..31
     */
    record Monthly(int anchorDay) implements CalendarWindow {

        /** Nominal {@code w} of a month: 30 days. */
        public static final long NOMINAL_SECONDS = 30 * SECONDS_PER_DAY;

        public Monthly {
            if (anchorDay < 1 || anchorDay > 31) {
                throw new IllegalArgumentException("anchor-day: must be in 1..31, was " + anchorDay);
            }
        }

        @Override
        public long startEpochSecond(long windowId) {
            long year = 1970 + Math.floorDiv(windowId, 12);
            int month = (int) Math.floorMod(windowId, 12) + 1;
            LocalDate first = LocalDate.of((int) year, month, 1);
            int day = Math.min(anchorDay, first.lengthOfMonth());
            return first.withDayOfMonth(day).toEpochDay() * SECONDS_PER_DAY;
        }

        @Override
        public long windowIdAt(long epochSecond) {
            LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(epochSecond, SECONDS_PER_DAY));
            long month = (date.getYear() - 1970L) * 12 + date.getMonthValue() - 1;
            return epochSecond < startEpochSecond(month) ? month - 1 : month;
        }

        @Override
        public long nominalSeconds() {
            return NOMINAL_SECONDS;
        }

        @Override
        public String wireName() {
            return "monthly";
        }

        @Override
        public CalendarWindow withAnchorDay(int day) {
            return day == anchorDay ? this : new Monthly(day);
        }

        @Override
        public String toString() {
            return "monthly(anchor-day " + anchorDay + ")";
        }
    }
}
