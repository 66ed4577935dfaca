package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Error bodies that say "rate limited" without any rate-limit field, on the statuses servers use
 * for limits (400, 402, 403, 420, 422, 429). Id {@code error-body}.
 * <ul>
 *   <li>A JSON {@code retry_after}-like member (seconds, or milliseconds for {@code retry_after_ms})
 *       at the top level or nested: {@code retryAfter}, {@code error.retry_after}, Telegram's
 *       {@code parameters.retry_after}, ... ({@link Signals#bodyRetryAfter}) is the wait; a
 *       top-level {@code limit} number the quota and {@code current} the used count (e.g.
 *       Emailit).</li>
 *   <li>Known vendor codes and phrases, from the registry's {@link ErrorCodeTable} (Meta
 *       {@code error.code} 4/17/32/613, YouTube {@code errors[].reason} {@code quotaExceeded}, X
 *       {@code errors[].code} 88/185, Salesforce's array of {@code errorCode}s, Stripe, Okta,
 *       Twilio, Slack, ...), in JSON objects and arrays: the row's kind decides. The code is kept
 *       as attribute {@code error_code} ({@code vendor:value}).</li>
 *   <li>Otherwise the words servers use: "rate limit", "too many requests",
 *       "too fast", "allowed queries exceeded", ... in JSON text members or a plain-text/HTML body
 *       (RDAP servers send 403 and 422 this way). A daily or monthly limit named in the
 *       {@code error}/{@code message} text is {@code quota_exhausted}.</li>
 * </ul>
 */
public final class ErrorBodyDialect implements Dialect {

    public static final ErrorBodyDialect INSTANCE = new ErrorBodyDialect();

    /** The statuses servers use to say "too much": 429, and 400, 402, 403, 420, 422 (R08, vectors). */
    private static final Set<Integer> LIMIT_STATUSES = Set.of(400, 402, 403, 420, 422, 429);

    private ErrorBodyDialect() {
    }

    @Override
    public String id() {
        return "error-body";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (!LIMIT_STATUSES.contains(in.status()) || in.body() == null) {
            return Optional.empty(); // a 404 page that mentions "rate limit" is still a 404
        }
        JsonNode json = in.json().orElse(null);
        DialectReading.Builder r = DialectReading.builder();
        boolean matched = false;
        if (json != null) {
            Duration wait = Signals.bodyRetryAfter(json); // objects and arrays (Salesforce)
            if (wait != null) {
                r.retryAfter(wait);
                matched = true;
            }
        }
        if (json != null && json.isObject()) {
            JsonNode limit = json.get("limit");
            if (limit != null && limit.canConvertToLong() && limit.isIntegralNumber() && limit.longValue() >= 0) {
                JsonNode current = json.get("current");
                r.policy(PolicySnapshot.builder()
                        .quota(limit.longValue())
                        .used(current != null && current.isIntegralNumber() && current.canConvertToLong()
                                ? current.longValue() : null)
                        .build());
            }
        }
        ErrorCodeTable.Match code = in.errorCode().orElse(null);
        if (code != null) {
            return Optional.of(r.attribute("error_code", code.code()).outcome(code.kind()).build());
        }
        if (json != null && json.isObject()) {
            String headline = join(Signals.text(json, "error"), Signals.text(json, "message"),
                    Signals.text(json, "error", "message"));
            if (Signals.saysQuotaSpent(headline)) {
                return Optional.of(r.outcome(Outcome.QUOTA_EXHAUSTED).build());
            }
        }
        if (matched || Signals.saysRateLimited(in.body())) {
            return Optional.of(r.outcome(Outcome.RATE_LIMITED).build());
        }
        return Optional.empty();
    }

    private static String join(@Nullable String... parts) {
        StringBuilder b = new StringBuilder();
        for (String p : parts) {
            if (p != null) {
                b.append(p).append('\n');
            }
        }
        return b.toString();
    }
}
