package dev.sluice.wire.snapshot;

import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One limit as a response reported it, normalised from any dialect (SPEC §2.6). Every component
 * but {@code kind} and {@code attributes} may be {@code null}: dialects report different subsets.
 *
 * @param name the policy name ({@code "burst"}, GitHub's resource {@code "core"}, OpenAI's
 *     {@code "requests"} / {@code "tokens"}); {@code null} when the dialect names none
 * @param quota {@code q}: units the window allows
 * @param windowSeconds {@code w}: the window length in seconds
 * @param remaining {@code r}: units left now, never negative
 * @param resetIn {@code t}: time until the window resets, relative to the response's own time
 *     (its {@code Date} when present), never negative; millisecond precision. An absolute reset
 *     (GitHub epoch seconds, Anthropic RFC 3339) is converted with the response's {@code Date}
 *     (skew-proof, R04), exactly: the safety margin is added by {@link #resetWait(Duration)}
 * @param quotaUnit {@code qu}: {@code "requests"}, {@code "content-bytes"},
 *     {@code "concurrent-requests"}, a vendor unit such as {@code "tokens"}, or {@code null}
 * @param kind whether spending this policy out clears in seconds ({@link PolicyKind#BURST}) or at
 *     a calendar reset ({@link PolicyKind#QUOTA}); {@link PolicyKind#UNKNOWN} when the response
 *     does not say
 * @param used units already spent in this window when the dialect says so (GitHub
 *     {@code x-ratelimit-used}, Shopify {@code 32/40}), else {@code null}; never negative
 * @param resetAt the reset instant on the server's clock: as the server stated it (epoch seconds,
 *     RFC 3339), else the response's time plus {@code resetIn}; {@code null} when unknown. It is
 *     always the reset {@code resetIn} was read from: when a response states both an absolute and
 *     a relative reset (Discord's {@code X-RateLimit-Reset} and {@code -Reset-After}), it is the
 *     one waited for. For display and for a quota's reset instant; waits use {@code resetIn}
 * @param attributes further facts the dialect reported for this policy (draft-11 {@code pk} as
 *     canonical base64, unregistered parameters such as {@code burst}, a Salesforce
 *     {@code appName}); never {@code null}, insertion-ordered
 * @param absoluteReset true when the server stated the reset as an absolute time (epoch seconds or
 *     milliseconds, RFC 3339, HTTP-date) and {@code resetIn} was derived from it by subtracting the
 *     response's time; false for a relative reset (draft-11 {@code t}, delta seconds, a Go
 *     duration) or none. A derived wait can be a whole second short (both instants are truncated
 *     to seconds, and a reset equal to {@code Date} gives zero), which is why a caller adds a
 *     safety margin to it and only to it (R04, {@link #resetWait(Duration)})
 */
public record PolicySnapshot(
        @Nullable String name,
        @Nullable Long quota,
        @Nullable Long windowSeconds,
        @Nullable Long remaining,
        @Nullable Duration resetIn,
        @Nullable String quotaUnit,
        PolicyKind kind,
        @Nullable Long used,
        @Nullable Instant resetAt,
        Map<String, String> attributes,
        boolean absoluteReset) {

    public PolicySnapshot {
        if (kind == null) {
            kind = PolicyKind.UNKNOWN;
        }
        if (remaining != null && remaining < 0) {
            remaining = 0L;
        }
        if (used != null && used < 0) {
            used = 0L;
        }
        if (resetIn != null && resetIn.isNegative()) {
            resetIn = Duration.ZERO;
        }
        if (resetIn == null) {
            absoluteReset = false; // nothing was derived
        }
        attributes = attributes == null || attributes.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    /** A policy without {@code used}, {@code resetAt} or attributes, its reset relative. */
    public PolicySnapshot(@Nullable String name, @Nullable Long quota, @Nullable Long windowSeconds,
            @Nullable Long remaining, @Nullable Duration resetIn, @Nullable String quotaUnit, PolicyKind kind) {
        this(name, quota, windowSeconds, remaining, resetIn, quotaUnit, kind, null, null, Map.of(), false);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** True when the response says nothing is left ({@code remaining == 0}). */
    public boolean isExhausted() {
        return remaining != null && remaining == 0;
    }

    /**
     * How long a caller must wait before this policy admits anything: {@code resetIn} when
     * exhausted (zero when the reset is unknown), else zero.
     */
    public Duration waitIfExhausted() {
        if (!isExhausted() || resetIn == null) {
            return Duration.ZERO;
        }
        return resetIn;
    }

    /**
     * How long a caller waits for this policy's reset: {@code resetIn}, plus {@code resetMargin}
     * when the reset was stated as an absolute time ({@link #absoluteReset()}), saturating at
     * {@link WireNumbers#MAX_DURATION}. R04: with {@code x-ratelimit-reset} equal to the response's
     * {@code Date}, {@code resetIn} is zero and the wait is the margin (1 s), not zero; with the reset
     * 30 s after {@code Date} it is 31 s whatever the local clock says. A relative reset
     * ({@code t=30}, {@code 6m0s}, Reddit's {@code 342}) is already the server's own count of the
     * wait, a ceiling, and gets no margin.
     *
     * @param resetMargin the safety margin for absolute resets; R04 asks for at least 1 s
     * @return the wait, or {@code null} when the reset is unknown
     * @throws IllegalArgumentException if {@code resetMargin} is negative
     */
    public @Nullable Duration resetWait(Duration resetMargin) {
        if (resetMargin.isNegative()) {
            throw new IllegalArgumentException("resetMargin must not be negative: " + resetMargin);
        }
        if (resetIn == null) {
            return null;
        }
        if (!absoluteReset || resetMargin.isZero()) {
            return resetIn;
        }
        Duration max = WireNumbers.MAX_DURATION;
        return resetIn.compareTo(max.minus(resetMargin)) >= 0 || resetMargin.compareTo(max) >= 0
                ? max : resetIn.plus(resetMargin);
    }

    /** {@code resetIn} in milliseconds, or {@code null}. */
    public @Nullable Long resetMillis() {
        return resetIn == null ? null : resetIn.toMillis();
    }

    /** Whether a spent policy of this kind clears in seconds or at a window reset. */
    public enum PolicyKind {
        /** A token bucket / short window: spending it out clears in seconds (rate_limited). */
        BURST,
        /** A calendar or long window (an hour or more, daily, monthly, credits): quota_exhausted. */
        QUOTA,
        /** The response does not tell. */
        UNKNOWN;

        /** Windows of at least this many seconds are quota policies (SPEC §1: hours away). */
        public static final long QUOTA_WINDOW_SECONDS = 3_600L;

        /**
         * The kind the response implies: by window when known (≥ 1 hour → {@link #QUOTA}, else
         * {@link #BURST}), else by a name that says a calendar period or a quota
         * ({@code daily}, {@code monthly}, {@code tenant-app-quota}, ...) or a short period
         * ({@code burst}, {@code per-second}, ...), else {@link #UNKNOWN}.
         */
        public static PolicyKind infer(@Nullable String name, @Nullable Long windowSeconds) {
            if (windowSeconds != null && windowSeconds > 0) {
                return windowSeconds >= QUOTA_WINDOW_SECONDS ? QUOTA : BURST;
            }
            return fromName(name);
        }

        /** {@link #infer(String, Long)} from the name alone. */
        public static PolicyKind fromName(@Nullable String name) {
            if (name == null) {
                return UNKNOWN;
            }
            String n = name.toLowerCase(Locale.ROOT);
            if (n.contains("day") || n.contains("daily") || n.contains("month") || n.contains("week")
                    || n.contains("year") || n.contains("annual") || n.contains("hour")
                    || n.contains("quota") || n.contains("credit")) {
                return QUOTA;
            }
            if (n.contains("burst") || n.contains("second") || n.contains("minute")
                    || n.contains("per-min") || n.contains("permin") || n.contains("per_min")) {
                return BURST;
            }
            return UNKNOWN;
        }
    }

    /** Builds a {@link PolicySnapshot}; not thread-safe. */
    public static final class Builder {
        private @Nullable String name;
        private @Nullable Long quota;
        private @Nullable Long windowSeconds;
        private @Nullable Long remaining;
        private @Nullable Duration resetIn;
        private @Nullable String quotaUnit;
        private @Nullable PolicyKind kind;
        private @Nullable Long used;
        private @Nullable Instant resetAt;
        private boolean absoluteReset;
        private final Map<String, String> attributes = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder name(@Nullable String name) {
            this.name = name;
            return this;
        }

        public Builder quota(@Nullable Long quota) {
            this.quota = quota;
            return this;
        }

        public Builder windowSeconds(@Nullable Long windowSeconds) {
            this.windowSeconds = windowSeconds;
            return this;
        }

        public Builder remaining(@Nullable Long remaining) {
            this.remaining = remaining;
            return this;
        }

        public Builder resetIn(@Nullable Duration resetIn) {
            this.resetIn = resetIn;
            return this;
        }

        public Builder quotaUnit(@Nullable String quotaUnit) {
            this.quotaUnit = quotaUnit;
            return this;
        }

        /** The kind; when never set, {@link #build()} infers it from the name and window. */
        public Builder kind(@Nullable PolicyKind kind) {
            this.kind = kind;
            return this;
        }

        public Builder used(@Nullable Long used) {
            this.used = used;
            return this;
        }

        public Builder resetAt(@Nullable Instant resetAt) {
            this.resetAt = resetAt;
            return this;
        }

        /** Whether {@code resetIn} was derived from an absolute reset (see {@link PolicySnapshot#absoluteReset()}). */
        public Builder absoluteReset(boolean absoluteReset) {
            this.absoluteReset = absoluteReset;
            return this;
        }

        public Builder attribute(@Nullable String key, @Nullable String value) {
            if (key != null && value != null) {
                attributes.put(key, value);
            }
            return this;
        }

        public @Nullable String name() {
            return name;
        }

        public @Nullable Long quota() {
            return quota;
        }

        public @Nullable Long remaining() {
            return remaining;
        }

        public @Nullable Long used() {
            return used;
        }

        public @Nullable Duration resetIn() {
            return resetIn;
        }

        public @Nullable Instant resetAt() {
            return resetAt;
        }

        public boolean absoluteReset() {
            return absoluteReset;
        }

        public PolicySnapshot build() {
            PolicyKind k = kind != null ? kind : PolicyKind.infer(name, windowSeconds);
            Long r = remaining;
            if (r == null && quota != null && used != null) {
                r = Math.max(0L, quota - used);
            }
            return new PolicySnapshot(name, quota, windowSeconds, r, resetIn, quotaUnit, k, used, resetAt, attributes,
                    absoluteReset && resetIn != null);
        }
    }
}
