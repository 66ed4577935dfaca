package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.Objects;
import java.util.Optional;

/**
 * The generic {@code X-RateLimit-*} family many APIs share (SendGrid, Okta, X/Twitter, App.net,
 * WHOOP, Prisjakt, ...): {@code X-RateLimit-Limit} / {@code X-Rate-Limit-Limit},
 * {@code -Remaining}, {@code -Reset}, {@code -Used}. Id {@code x-ratelimit} for the standard
 * instance.
 *
 * <p>The limit may carry quota policies in the old IETF style ({@code 100, 100;window=60,
 * 10000;window=86400}); the matching window is attached to the limit and the others become further
 * policies. Vendors disagree on what {@code -Reset} means, so the {@link ResetUnit} is a
 * constructor argument: the standard instance uses {@link ResetUnit#AUTO} (epoch seconds when the
 * value is ≥ 10<sup>9</sup>, epoch milliseconds when ≥ 10<sup>12</sup>, delta seconds otherwise);
 * a server documented to send delta milliseconds (Prisjakt: {@code 600000} = 10 minutes, which AUTO
 * would read as 600,000 seconds) needs its own instance, e.g.
 * {@code XRateLimitDialect.of("prisjakt", ResetUnit.DELTA_MILLIS)}, registered first.
 *
 * <p>Immutable and thread-safe.
 */
public final class XRateLimitDialect implements Dialect {

    private static final XRateLimitDialect STANDARD = new XRateLimitDialect("x-ratelimit", ResetUnit.AUTO);

    private static final String[] LIMIT = {"x-ratelimit-limit", "x-rate-limit-limit"};
    private static final String[] REMAINING = {"x-ratelimit-remaining", "x-rate-limit-remaining"};
    private static final String[] RESET = {"x-ratelimit-reset", "x-rate-limit-reset"};
    private static final String[] USED = {"x-ratelimit-used", "x-rate-limit-used"};

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
        String limit = first(in, LIMIT);
        String remaining = first(in, REMAINING);
        String reset = first(in, RESET);
        if (limit == null && remaining == null && reset == null) {
            return Optional.empty();
        }
        QuotaPolicies list = QuotaPolicies.parseLoose(limit);
        DialectReading.Builder r = DialectReading.builder();
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .quota(list.limit())
                .remaining(count(in, REMAINING))
                .used(count(in, USED))
                .quotaUnit("requests");
        int own = list.policyFor(list.limit());
        if (own >= 0) {
            p.windowSeconds(list.policies().get(own)[1]);
        }
        Long interval = in.count("x-ratelimit-interval-seconds");
        if (own < 0 && interval != null && interval > 0) {
            p.windowSeconds(interval); // Atlassian Data Center
        }
        resetUnit.apply(reset, in.responseTime(), p);
        r.policy(p.build());
        for (int i = 0; i < list.policies().size(); i++) {
            if (i != own) {
                long[] qw = list.policies().get(i);
                r.policy(PolicySnapshot.builder().quota(qw[0]).windowSeconds(qw[1]).quotaUnit("requests").build());
            }
        }
        return Optional.of(r.build());
    }

    private static String first(DialectInput in, String[] names) {
        for (String n : names) {
            String v = in.header(n);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private static Long count(DialectInput in, String[] names) {
        for (String n : names) {
            Long v = in.count(n);
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
