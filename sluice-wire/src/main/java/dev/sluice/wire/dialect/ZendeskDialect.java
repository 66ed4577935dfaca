package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.util.Optional;

/**
 * Zendesk: the account limit as {@code ratelimit-limit} / {@code -remaining} / {@code -reset}
 * (delta seconds; also {@code x-rate-limit} / {@code x-rate-limit-remaining}), plus one field per
 * endpoint limit, {@code zendesk-ratelimit-<endpoint>: total=100; remaining=99; resets=41}.
 * Id {@code zendesk}.
 *
 * <p>The endpoint field looks like a Structured Field Dictionary but is not one ({@code ;} would
 * start parameters, so an RFC 9651 parser sees a single member), hence the dedicated
 * {@code key=value; key=value} reading. The account limit comes first, then one policy per
 * endpoint, named by the endpoint ({@code tickets-index}).
 */
public final class ZendeskDialect implements Dialect {

    public static final ZendeskDialect INSTANCE = new ZendeskDialect();

    private static final String ENDPOINT_PREFIX = "zendesk-ratelimit-";

    private ZendeskDialect() {
    }

    @Override
    public String id() {
        return "zendesk";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        boolean endpoints = in.names().stream().anyMatch(n -> n.startsWith(ENDPOINT_PREFIX));
        if (!endpoints && !in.has("x-rate-limit")) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        Long limit = in.count("ratelimit-limit");
        PolicySnapshot.Builder account = PolicySnapshot.builder()
                .quota(limit != null ? limit : in.count("x-rate-limit"))
                // the two spellings of the account limit are one field: the lowest remaining (SPEC §2.4)
                .remaining(in.lowestCount("ratelimit-remaining", "x-rate-limit-remaining"))
                .quotaUnit("requests");
        ResetUnit.DELTA_SECONDS.applyLongest(in.members("ratelimit-reset"), in.responseTime(), account);
        r.policy(account.build());

        for (String name : in.names()) {
            if (!name.startsWith(ENDPOINT_PREFIX) || name.length() == ENDPOINT_PREFIX.length()) {
                continue;
            }
            for (String line : in.all(name)) {
                // sent twice, one policy per line: the registry merges them (lowest remaining, longest reset)
                r.policy(endpoint(name.substring(ENDPOINT_PREFIX.length()), line, in));
            }
        }
        return Optional.of(r.build());
    }

    private static PolicySnapshot endpoint(String endpoint, String line, DialectInput in) {
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .name(endpoint)
                .quotaUnit("requests");
        for (String pair : line.split(";")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = pair.substring(0, eq).strip();
            String value = pair.substring(eq + 1).strip();
            long n = WireNumbers.parseCount(value);
            switch (key) {
                case "total" -> p.quota(n >= 0 ? n : null);
                case "remaining" -> p.remaining(n >= 0 ? n : null);
                case "resets" -> ResetUnit.DELTA_SECONDS.apply(value, in.responseTime(), p);
                default -> {
                    // unknown keys are ignored
                }
            }
        }
        return p.build();
    }
}
