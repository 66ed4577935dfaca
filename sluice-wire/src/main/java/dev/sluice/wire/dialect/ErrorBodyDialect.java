package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Error bodies that say "rate limited" without any rate-limit field, on the statuses servers use
 * for limits (400, 402, 403, 420, 422, 429). Id {@code error-body}.
 * <ul>
 *   <li>A JSON {@code retry_after}-like member (seconds, or milliseconds for {@code retry_after_ms})
 *       at the top level or nested: {@code retryAfter}, {@code error.retry_after}, Telegram's
 *       {@code parameters.retry_after}, ... ({@link Signals#bodyRetryAfter}) is the wait; a
 *       top-level {@code limit} number the quota and {@code current} the used count (e.g.
 *       Emailit).</li>
 *   <li>Known vendor codes: Stripe {@code error.code} {@code rate_limit} / {@code lock_timeout}
 *       (Stripe sent 400 before API version 2015-09-08), X/Twitter {@code errors[].code} 88, Okta
 *       {@code errorCode} {@code E0000047}, Twilio {@code code} 20429, Slack {@code error}
 *       {@code ratelimited}. The code is kept as attribute {@code error_code}.</li>
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
        if (json != null && json.isObject()) {
            Duration wait = Signals.bodyRetryAfter(json);
            if (wait != null) {
                r.retryAfter(wait);
                matched = true;
            }
            JsonNode limit = json.get("limit");
            if (limit != null && limit.canConvertToLong() && limit.isIntegralNumber() && limit.longValue() >= 0) {
                JsonNode current = json.get("current");
                r.policy(PolicySnapshot.builder()
                        .quota(limit.longValue())
                        .used(current != null && current.isIntegralNumber() && current.canConvertToLong()
                                ? current.longValue() : null)
                        .build());
            }
            String code = knownCode(json);
            if (code != null) {
                r.attribute("error_code", code).outcome(Outcome.RATE_LIMITED);
                return Optional.of(r.build());
            }
            String headline = join(Signals.text(json, "error"), Signals.text(json, "message"),
                    Signals.text(json, "error", "message"));
            if (Signals.saysQuotaSpent(headline)) {
                return Optional.of(r.outcome(Outcome.QUOTA_EXHAUSTED).build());
            }
            if (matched || Signals.saysRateLimited(in.body())) {
                return Optional.of(r.outcome(Outcome.RATE_LIMITED).build());
            }
            return Optional.empty();
        }
        if (Signals.saysRateLimited(in.body())) {
            return Optional.of(r.outcome(Outcome.RATE_LIMITED).build());
        }
        return Optional.empty();
    }

    /** A vendor's rate-limit error code, as {@code vendor:code}, or {@code null}. */
    private static String knownCode(JsonNode json) {
        String stripe = Signals.text(json, "error", "code");
        if ("rate_limit".equals(stripe) || "lock_timeout".equals(stripe)) {
            return "stripe:" + stripe;
        }
        JsonNode errors = json.get("errors");
        if (errors != null && errors.isArray()) {
            for (JsonNode e : errors) {
                JsonNode c = e.get("code");
                if (c != null && c.isIntegralNumber() && c.asLong() == 88) {
                    return "twitter:88";
                }
            }
        }
        if ("E0000047".equals(Signals.text(json, "errorCode"))) {
            return "okta:E0000047";
        }
        JsonNode twilio = json.get("code");
        if (twilio != null && twilio.isIntegralNumber() && twilio.asLong() == 20429) {
            return "twilio:20429";
        }
        String slack = Signals.text(json, "error");
        if (json.path("ok").isBoolean() && ("ratelimited".equals(slack) || "rate_limited".equals(slack))) {
            return "slack:" + slack;
        }
        return null;
    }

    private static String join(String... parts) {
        StringBuilder b = new StringBuilder();
        for (String p : parts) {
            if (p != null) {
                b.append(p).append('\n');
            }
        }
        return b.toString();
    }
}
