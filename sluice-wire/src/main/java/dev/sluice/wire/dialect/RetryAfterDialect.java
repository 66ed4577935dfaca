package dev.sluice.wire.dialect;

import java.util.Optional;

/**
 * A response whose only limit information is {@code Retry-After} or {@code retry-after-ms} (RFC
 * 6585 429s, Slack, RFC 9110 503s, Atlassian Data Center's {@code retry-after: 0} on every
 * response). The registry reads the hint itself; this dialect names the match. Id
 * {@code retry-after}.
 */
public final class RetryAfterDialect implements Dialect {

    public static final RetryAfterDialect INSTANCE = new RetryAfterDialect();

    private RetryAfterDialect() {
    }

    @Override
    public String id() {
        return "retry-after";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (in.has("Retry-After") || in.has("retry-after-ms") || in.has("x-ms-retry-after-ms")) {
            return Optional.of(DialectReading.builder().build());
        }
        return Optional.empty();
    }
}
