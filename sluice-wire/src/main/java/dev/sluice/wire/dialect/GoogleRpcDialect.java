package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Google APIs' error body ({@code google.rpc.Status} as JSON, also wrapped in a one-element array by
 * streaming endpoints) with status {@code RESOURCE_EXHAUSTED}. Id {@code google}.
 * <ul>
 *   <li>{@code google.rpc.RetryInfo.retryDelay} (a protobuf Duration, {@code "26s"},
 *       {@code "1.5s"}) is the retry-after hint.</li>
 *   <li>{@code google.rpc.QuotaFailure} violations ({@code quotaId}, {@code quotaValue}) and
 *       {@code google.rpc.ErrorInfo} metadata ({@code quota_limit}, {@code quota_limit_value})
 *       become policies named by the quota id.</li>
 *   <li>A per-day quota ({@code ...PerDay...}, R08b) means {@code quota_exhausted}: retrying after
 *       the hint fails again until the daily reset. Per-minute quotas are rate limits (R08c).</li>
 *   <li>{@code RESOURCE_EXHAUSTED} that names no quota and gives no {@code RetryInfo} (FCM's
 *       {@code QUOTA_EXCEEDED}, Vertex AI's per-minute quota message, the bare "Resource has been
 *       exhausted (e.g. check quota).") is still the caller's limit: {@code rate_limited}, or
 *       {@code quota_exhausted} when its message names a per-day quota or an
 *       {@link ErrorCodeTable} row says so. It is {@code overloaded} only when the message says
 *       shared capacity is short ("overloaded", "high demand", ...) (SPEC §2.6).</li>
 * </ul>
 */
public final class GoogleRpcDialect implements Dialect {

    public static final GoogleRpcDialect INSTANCE = new GoogleRpcDialect();

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);

    private GoogleRpcDialect() {
    }

    @Override
    public String id() {
        return "google";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (in.status() < 400) {
            return Optional.empty();
        }
        JsonNode json = in.json().orElse(null);
        if (json != null && json.isArray() && json.size() >= 1) {
            json = json.get(0);
        }
        JsonNode error = Signals.at(json, "error");
        if (error == null || !"RESOURCE_EXHAUSTED".equals(Signals.text(error, "status"))) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        boolean retryInfo = false;
        JsonNode details = error.get("details");
        if (details != null && details.isArray()) {
            for (JsonNode d : details) {
                String type = Signals.text(d, "@type");
                if (type == null) {
                    continue;
                }
                if (type.endsWith("google.rpc.RetryInfo")) {
                    Duration delay = protobufDuration(Signals.text(d, "retryDelay"));
                    if (delay != null) {
                        r.retryAfter(delay);
                        retryInfo = true;
                    }
                } else if (type.endsWith("google.rpc.QuotaFailure")) {
                    JsonNode violations = d.get("violations");
                    if (violations != null && violations.isArray()) {
                        for (JsonNode v : violations) {
                            String id = Signals.text(v, "quotaId");
                            addQuota(r, id != null ? id : Signals.text(v, "subject"),
                                    Signals.scalar(v, "quotaValue"), Signals.text(v, "quotaMetric"));
                        }
                    }
                } else if (type.endsWith("google.rpc.ErrorInfo")) {
                    r.attribute("reason", Signals.text(d, "reason"));
                    String limit = Signals.text(d, "metadata", "quota_limit");
                    if (limit != null) {
                        addQuota(r, limit, Signals.scalar(d, "metadata", "quota_limit_value"),
                                Signals.text(d, "metadata", "quota_metric"));
                    }
                }
            }
        }
        PolicySnapshot daily = r.policies().stream().filter(p -> p.kind() == PolicyKind.QUOTA).findFirst().orElse(null);
        if (daily != null) {
            r.outcome(Outcome.QUOTA_EXHAUSTED).violatedPolicy(daily.name());
        } else if (!r.policies().isEmpty() || retryInfo) {
            r.outcome(Outcome.RATE_LIMITED);
            if (!r.policies().isEmpty()) {
                r.violatedPolicy(r.policies().get(0).name());
            }
        } else {
            // neither RetryInfo nor QuotaFailure: still addressed to the caller (a 429 is), unless the
            // message names a spent daily quota, a vendor code says which, or it says capacity is short
            String message = Signals.text(error, "message");
            ErrorCodeTable.Match code = in.errorCode().orElse(null);
            r.outcome(code != null ? code.kind()
                    : Signals.saysCapacityShort(message) ? Outcome.OVERLOADED
                    : Signals.saysQuotaSpent(message) ? Outcome.QUOTA_EXHAUSTED
                    : Outcome.RATE_LIMITED);
        }
        return Optional.of(r.build());
    }

    private static void addQuota(
            DialectReading.Builder r, @Nullable String id, @Nullable String value, @Nullable String metric) {
        if (id == null) {
            return;
        }
        long q = WireNumbers.parseCount(value);
        r.policy(PolicySnapshot.builder()
                .name(id)
                .quota(q >= 0 ? q : null)
                .kind(PolicyKind.fromName(id))
                .attribute("metric", metric)
                .build());
    }

    /** A protobuf Duration in JSON: decimal seconds with an {@code s} suffix; rounded up to ms. */
    static @Nullable Duration protobufDuration(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String s = value.strip();
        if (!s.endsWith("s")) {
            return null;
        }
        return WireNumbers.parseDecimal(s.substring(0, s.length() - 1), SECOND, MILLI);
    }
}
