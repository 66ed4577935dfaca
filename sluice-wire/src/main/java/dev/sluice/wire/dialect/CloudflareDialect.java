package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cloudflare API v4 error bodies ({@code {"success":false,"errors":[{"code":10100,"message":...}]}})
 * with a rate-limit code (971, 10040, 10100). The documented message of the global limit,
 * "More than 1200 requests per 300 seconds reached", gives the policy: quota 1200, window 300 s.
 * (Newer Cloudflare APIs send draft-11 {@code RateLimit} fields, read by
 * {@link IetfDraft11Dialect}.) Id {@code cloudflare}.
 */
public final class CloudflareDialect implements Dialect {

    public static final CloudflareDialect INSTANCE = new CloudflareDialect();

    private static final Set<Long> RATE_LIMIT_CODES = Set.of(971L, 10040L, 10100L);
    private static final Pattern REQUESTS_PER_SECONDS = Pattern.compile("(\\d{1,15}) requests per (\\d{1,15}) seconds");

    private CloudflareDialect() {
    }

    @Override
    public String id() {
        return "cloudflare";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        JsonNode json = in.status() >= 400 ? in.json().orElse(null) : null;
        JsonNode errors = Signals.at(json, "errors");
        if (json == null || errors == null || !errors.isArray() || !json.path("success").isBoolean()) {
            return Optional.empty();
        }
        for (JsonNode e : errors) {
            JsonNode code = e.get("code");
            if (code == null || !code.canConvertToLong() || !RATE_LIMIT_CODES.contains(code.longValue())) {
                continue;
            }
            DialectReading.Builder r = DialectReading.builder()
                    .outcome(Outcome.RATE_LIMITED)
                    .attribute("error_code", code.asText());
            String message = Signals.text(e, "message");
            Matcher m = message == null ? null : REQUESTS_PER_SECONDS.matcher(message);
            if (m != null && m.find()) {
                r.policy(PolicySnapshot.builder()
                        .quota(Long.parseLong(m.group(1)))
                        .windowSeconds(Long.parseLong(m.group(2)))
                        .quotaUnit("requests")
                        .build());
            }
            return Optional.of(r.build());
        }
        return Optional.empty();
    }
}
