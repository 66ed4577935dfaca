package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.Rfc3339;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Atlassian Jira Cloud's points-based limits: draft-11 syntax under {@code Beta-RateLimit} and
 * {@code Beta-RateLimit-Policy} (read like {@link IetfDraft11Dialect}), plus
 * {@code X-Beta-Ratelimit-Reason} (attribute {@code reason}), {@code X-Beta-Ratelimit-Nearlimit}
 * (attribute {@code near_limit}) and {@code X-Beta-Ratelimit-Reset}, an ISO 8601 instant kept as
 * the first policy's {@code resetAt} (the wait still comes from {@code t}; the two are known to
 * disagree). Id {@code atlassian-beta}.
 */
public final class AtlassianBetaDialect implements Dialect {

    public static final AtlassianBetaDialect INSTANCE = new AtlassianBetaDialect();

    private final IetfDraft11Dialect fields = IetfDraft11Dialect.withFieldPrefix("atlassian-beta", "Beta-");

    private AtlassianBetaDialect() {
    }

    @Override
    public String id() {
        return "atlassian-beta";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        List<PolicySnapshot.Builder> policies = fields.readPolicies(in);
        if (policies.isEmpty()) {
            return Optional.empty();
        }
        Instant reset = Rfc3339.parse(in.header("x-beta-ratelimit-reset"));
        if (reset != null) {
            policies.get(0).resetAt(reset);
        }
        DialectReading.Builder r = DialectReading.builder();
        policies.forEach(p -> r.policy(p.build()));
        r.attribute("reason", in.header("x-beta-ratelimit-reason"));
        r.attribute("near_limit", in.header("x-beta-ratelimit-nearlimit"));
        return Optional.of(r.build());
    }
}
