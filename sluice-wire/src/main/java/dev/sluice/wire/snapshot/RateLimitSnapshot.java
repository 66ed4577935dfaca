package dev.sluice.wire.snapshot;

import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Everything one response says about the caller's limits, in one shape whatever dialect the server
 * spoke (SPEC §2.6): the client classifies and paces from this, {@code sluice explain} prints it.
 *
 * <p>How long to wait is answered in one place, {@link #suggestedWait(Duration)}: the SDK's retry
 * and pacing code and {@code sluice explain}'s {@code wait_ms} both use it.
 *
 * @param status the HTTP status code
 * @param outcome what the response means: ok, rate_limited, quota_exhausted, overloaded, ...
 * @param dialect the id of the dialect that matched ({@code "ietf-draft-11"}, {@code "github"},
 *     ...), or {@code null} when the response carried no limit information Sluice recognises
 * @param retryAfter how long the server asked the caller to wait, counted from when the origin
 *     produced the response (its {@code Date}): the longest of {@code Retry-After},
 *     {@code retry-after-ms}, a vendor header or a body hint (SPEC §2.4); never negative;
 *     {@code null} when absent or malformed (the caller falls back to its own jittered backoff). As
 *     the server said it: for a cached response, {@link #suggestedWait(Duration)} subtracts
 *     {@link #age()}
 * @param cached true when the response came from a cache ({@code Age} present): its limit fields
 *     must not be used for pacing (SPEC §2.5)
 * @param policies the limits reported, in the order the response listed them; may be empty
 * @param violatedPolicy the policy that denied (problem {@code limit}, or the dialect's own
 *     marker), or {@code null}
 * @param quotaResetAt when a spent quota comes back, if the response says; {@code null} otherwise
 * @param attributes dialect-specific facts worth keeping ({@code scope}, {@code bucket},
 *     {@code resource}, {@code global}); never {@code null}
 * @param violatedPolicies every policy named as violated (problem {@code limit} and
 *     {@code violated-policies}, the dialect's marker), in order; when none is named but
 *     {@code violatedPolicy} is set, that one; never {@code null}
 * @param age the {@code Age} field (RFC 9111 §5.1): how long the response sat in caches since the
 *     origin produced it; {@code null} when the response has no valid {@code Age}. A non-null age
 *     implies {@code cached}
 */
public record RateLimitSnapshot(
        int status,
        Outcome outcome,
        @Nullable String dialect,
        @Nullable Duration retryAfter,
        boolean cached,
        List<PolicySnapshot> policies,
        @Nullable String violatedPolicy,
        @Nullable Instant quotaResetAt,
        Map<String, String> attributes,
        List<String> violatedPolicies,
        @Nullable Duration age) {

    /**
     * The safety margin {@link #suggestedWait()} adds to a wait derived from an absolute reset: 1 s,
     * the least R04 allows.
     */
    public static final Duration DEFAULT_RESET_MARGIN = Duration.ofSeconds(1);

    public RateLimitSnapshot {
        Objects.requireNonNull(outcome, "outcome");
        policies = policies == null ? List.of() : List.copyOf(policies);
        attributes = attributes == null || attributes.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        if (retryAfter != null && retryAfter.isNegative()) {
            retryAfter = Duration.ZERO;
        }
        violatedPolicies = violatedPolicies == null ? List.of() : List.copyOf(violatedPolicies);
        if (violatedPolicies.isEmpty() && violatedPolicy != null) {
            violatedPolicies = List.of(violatedPolicy);
        }
        if (age != null) {
            age = age.isNegative() ? Duration.ZERO : age;
            cached = true;
        }
    }

    /** A snapshot whose {@code violatedPolicies} follows {@code violatedPolicy}, and with no age. */
    public RateLimitSnapshot(int status, Outcome outcome, @Nullable String dialect, @Nullable Duration retryAfter,
            boolean cached, List<PolicySnapshot> policies, @Nullable String violatedPolicy, @Nullable Instant quotaResetAt,
            Map<String, String> attributes) {
        this(status, outcome, dialect, retryAfter, cached, policies, violatedPolicy, quotaResetAt, attributes,
                List.of(), null);
    }

    /** {@link #retryAfter()} in milliseconds, or {@code null} (the {@code retry_after_ms} of explain). */
    public @Nullable Long retryAfterMillis() {
        return retryAfter == null ? null : retryAfter.toMillis();
    }

    /**
     * False when the response came from a cache: then its policies describe someone else's (or an
     * old) state and must not drive pacing (SPEC §2.5).
     */
    public boolean usableForPacing() {
        return !cached;
    }

    /** The policy named {@code name} (exact match), if reported. */
    public Optional<PolicySnapshot> policy(String name) {
        for (PolicySnapshot p : policies) {
            if (Objects.equals(p.name(), name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * The server's hint as it stands when the response is received: {@link #retryAfter()}, less
     * {@link #age()} for a cached response, clamped at zero; {@code null} when there is no hint.
     *
     * <p>Why subtract the age: {@code Retry-After} counts from when the origin produced the
     * response, and a cache that kept it for {@code Age} seconds has already spent that much of the
     * wait (RFC 9111 §4.2.3 counts a stored response's age the same way). Waiting the full hint
     * after a 30 s old {@code Retry-After: 40} would wait 30 s longer than the origin asked. An
     * unknown age (malformed {@code Age}) subtracts nothing, which can only wait longer, never less.
     */
    public @Nullable Duration retryAfterAtReceipt() {
        if (retryAfter == null) {
            return null;
        }
        if (age == null) {
            return retryAfter;
        }
        Duration left = retryAfter.minus(age);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * The most restrictive reported policy, which a pacer obeys when several are reported (R06):
     * among exhausted policies ({@code remaining == 0}) the one with the longest wait; otherwise the
     * one with the least allowance per second until its reset ({@code remaining / resetIn});
     * otherwise the one with the least remaining. Empty when no policy reports {@code remaining},
     * and empty for a {@link #cached()} response, whose policies must not drive pacing (SPEC §2.5).
     */
    public Optional<PolicySnapshot> mostRestrictive() {
        if (cached) {
            return Optional.empty();
        }
        Optional<PolicySnapshot> exhausted = policies.stream()
                .filter(PolicySnapshot::isExhausted)
                .max(Comparator.comparing(PolicySnapshot::waitIfExhausted));
        if (exhausted.isPresent()) {
            return exhausted;
        }
        return policies.stream()
                .filter(p -> p.remaining() != null)
                .min(Comparator.comparingDouble(RateLimitSnapshot::allowancePerSecond)
                        .thenComparingLong(PolicySnapshot::remaining));
    }

    /**
     * The longest wait the response states, exactly as stated (no safety margin): the larger of
     * {@link #retryAfterAtReceipt()} and the reset of every exhausted policy; zero when neither says
     * anything. For a {@link #cached()} response only the hint counts (SPEC §2.5). To decide how
     * long to wait, use {@link #suggestedWait(Duration)}, which also adds R04's margin.
     */
    public Duration longestWait() {
        Duration hint = retryAfterAtReceipt();
        Duration wait = hint == null ? Duration.ZERO : hint;
        if (cached) {
            return wait;
        }
        for (PolicySnapshot p : policies) {
            Duration w = p.waitIfExhausted();
            if (w.compareTo(wait) > 0) {
                wait = w;
            }
        }
        return wait;
    }

    /** {@link #suggestedWait(Duration)} with {@link #DEFAULT_RESET_MARGIN} (1 s). */
    public Optional<Duration> suggestedWait() {
        return suggestedWait(DEFAULT_RESET_MARGIN);
    }

    /**
     * What a well-behaved client waits, from when it received this response, before it sends the
     * next request these limits govern. The one definition of "how long to wait": the SDK's retry
     * and pacing code and {@code sluice explain}'s {@code wait_ms} use it.
     *
     * <p>The result is the <b>longest</b> of these waits (SPEC §2.4: a hint is never undercut; R06:
     * with several policies the most restrictive one wins):
     * <ol>
     *   <li>the server's hint, {@link #retryAfterAtReceipt()}: {@link #retryAfter()} (already the
     *       longest of {@code Retry-After}, {@code retry-after-ms}, vendor and body hints), less
     *       {@link #age()} when the response is cached;</li>
     *   <li>unless the response is {@link #cached()} (SPEC §2.5: its limit fields are ignored for
     *       pacing), the reset wait {@link PolicySnapshot#resetWait(Duration)} of every policy that
     *       governs the next request:
     *       <ul>
     *         <li>every exhausted policy ({@code remaining == 0}), whatever the status (a 200 with
     *             {@code r=0} still means the next request would be refused);</li>
     *         <li>on a limit ({@link Outcome#isLimit()}), every policy named as violated
     *             ({@link #violatedPolicies()});</li>
     *         <li>on a limit where neither of those has a known reset, the one policy that reports
     *             a reset, if exactly one does (a GitHub secondary limit reports one resource;
     *             Azure OpenAI's 429 resets only the family that denied).</li>
     *       </ul>
     *       A reset the server stated as an absolute time (epoch, RFC 3339, HTTP-date) is measured
     *       from the response's {@code Date} and gets {@code resetMargin} added (R04: a reset equal
     *       to {@code Date} waits the margin, not zero; {@code Date} T, reset T + 30 s waits 31 s
     *       whatever the local clock). A relative reset (draft-11 {@code t}, delta seconds, Go
     *       durations) is the server's own ceiling and is used as is.</li>
     * </ol>
     *
     * <p>No jitter is added: SPEC §4.3's upward jitter {@code U(0, J)} is the caller's. Waits that
     * exceed the caller's maximum are not the concern of this method: it reports them whole, and the
     * caller fails fast rather than undercut them (SPEC §2.4, R03).
     *
     * @param resetMargin the safety margin for absolute resets; R04 asks for at least 1 s
     *     ({@link #DEFAULT_RESET_MARGIN})
     * @return the wait, never negative, at most {@link WireNumbers#MAX_DURATION}; {@code Duration.ZERO}
     *     when the server says "now" (e.g. {@code Retry-After: 0}, or a cached hint that has run out);
     *     empty when the response implies no wait at all (no hint and no governing policy with a
     *     known reset), in which case the caller uses its own backoff (SPEC §4.3 full jitter)
     * @throws NullPointerException if {@code resetMargin} is {@code null}
     * @throws IllegalArgumentException if {@code resetMargin} is negative
     */
    public Optional<Duration> suggestedWait(Duration resetMargin) {
        Objects.requireNonNull(resetMargin, "resetMargin");
        if (resetMargin.isNegative()) {
            throw new IllegalArgumentException("resetMargin must not be negative: " + resetMargin);
        }
        @Nullable Duration wait = retryAfterAtReceipt();
        if (!cached) {
            @Nullable Duration governing = null;
            for (PolicySnapshot p : policies) {
                boolean named = outcome.isLimit() && p.name() != null && violatedPolicies.contains(p.name());
                if (p.isExhausted() || named) {
                    governing = longer(governing, p.resetWait(resetMargin));
                }
            }
            if (governing == null && outcome.isLimit()) {
                @Nullable PolicySnapshot only = null;
                int withReset = 0;
                for (PolicySnapshot p : policies) {
                    if (p.resetIn() != null) {
                        withReset++;
                        only = p;
                    }
                }
                if (withReset == 1 && only != null) {
                    governing = only.resetWait(resetMargin);
                }
            }
            wait = longer(wait, governing);
        }
        return Optional.ofNullable(wait == null ? null : WireNumbers.clamp(wait));
    }

    private static @Nullable Duration longer(@Nullable Duration a, @Nullable Duration b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) >= 0 ? a : b;
    }

    private static double allowancePerSecond(PolicySnapshot p) {
        Duration resetIn = p.resetIn();
        Long remaining = p.remaining();
        if (resetIn == null || remaining == null) {
            return Double.MAX_VALUE; // no reset (or nothing left) known: cannot rank it as restrictive
        }
        double seconds = Math.max(resetIn.toMillis(), 1L) / 1000.0;
        return remaining / seconds;
    }
}
