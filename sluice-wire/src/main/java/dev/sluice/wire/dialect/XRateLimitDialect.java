package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.Objects;
import java.util.Optional;

/**
 * The generic {@code X-RateLimit-*} family many APIs share (SendGrid, Okta, X/Twitter, App.net,
 * WHOOP, Prisjakt, Reddit, ...): {@code X-RateLimit-Limit} / {@code X-Rate-Limit-Limit},
 * {@code -Remaining} (a decimal {@code 599.0} is rounded down), {@code -Reset}, {@code -Used}.
 * Sent twice, the lowest remaining and the longest reset count (SPEC §2.4). Id {@code x-ratelimit} for the standard
 * instance.
 *
 * <p>The limit may carry quota policies in the old IETF style ({@code 100, 100;window=60,
 * 10000;window=86400}); the matching window is attached to the limit and the others become further
 * policies. Vendors disagree on what {@code -Reset} means, so the {@link ResetUnit} is a
 * constructor argument: the standard instance uses {@link ResetUnit#AUTO} (epoch seconds when the
 * value is ≥ 10<sup>9</sup>, epoch milliseconds when ≥ 10<sup>12</sup>, and a plausible instant;
 * delta seconds otherwise: Reddit's {@code 502}, App.net's {@code 2615});
 * a server documented to send delta milliseconds (Prisjakt: {@code 600000} = 10 minutes, which AUTO
 * would read as 600,000 seconds) needs its own instance, e.g.
 * {@code XRateLimitDialect.of("prisjakt", ResetUnit.DELTA_MILLIS)}, registered first.
 *
 * <p>Immutable and thread-safe.
 */
public final class XRateLimitDialect implements Dialect {

    private static final XRateLimitDialect STANDARD = new XRateLimitDialect("x-ratelimit", ResetUnit.AUTO);

    // DialectInput reads X-Rate-Limit-* under these names too
    private static final String LIMIT = "x-ratelimit-limit";
    private static final String REMAINING = "x-ratelimit-remaining";
    private static final String RESET = "x-ratelimit-reset";
    private static final String USED = "x-ratelimit-used";

    private final String id;
    private final ResetUnit resetUnit;

    private XRateLimitDialect(String id, ResetUnit resetUnit) {
        this.id = Objects.requireNonNull(id, "id");
        this.resetUnit = Objects.requireNonNull(resetUnit, "resetUnit");
    }

    /** The standard instance: id {@code x-ratelimit}, {@link ResetUnit#AUTO}. */
    public static XRateLimitDialect standard() {
        return STANDARD;
    }

    /**
     * An instance for a server whose reset unit is known.
     *
     * @param id the dialect id to report, e.g. {@code "prisjakt"}
     * @param resetUnit how that server's {@code -Reset} is to be read
     */
    public static XRateLimitDialect of(String id, ResetUnit resetUnit) {
        return new XRateLimitDialect(id, resetUnit);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        String limit = in.header(LIMIT);
        if (limit == null && !in.has(REMAINING) && !in.has(RESET)) {
            return Optional.empty();
        }
        QuotaPolicies list = QuotaPolicies.parseLoose(limit);
        DialectReading.Builder r = DialectReading.builder();
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .quota(list.limit())
                .remaining(in.count(REMAINING))
                .used(in.usedCount(USED))
                .quotaUnit("requests");
        int own = list.policyFor(list.limit());
        if (own >= 0) {
            p.windowSeconds(list.policies().get(own)[1]);
        }
        Long interval = in.count("x-ratelimit-interval-seconds");
        if (own < 0 && interval != null && interval > 0) {
            p.windowSeconds(interval); // Atlassian Data Center
        }
        resetUnit.applyLongest(in.members(RESET), in.responseTime(), p);
        r.policy(p.build());
        for (int i = 0; i < list.policies().size(); i++) {
            if (i != own) {
                long[] qw = list.policies().get(i);
                r.policy(PolicySnapshot.builder().quota(qw[0]).windowSeconds(qw[1]).quotaUnit("requests").build());
            }
        }
        return Optional.of(r.build());
    }
}
