package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * AWS error responses, which name the error in {@code x-amzn-ErrorType}
 * ({@code LimitExceededException:http://internal.amazon.com/...}) or in the JSON protocols'
 * {@code __type} member ({@code com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException}),
 * and API Gateway's default gateway responses, whose body is only a {@code message}. Id
 * {@code aws}.
 *
 * <p>API Gateway answers 429 for two different reasons (API Gateway developer guide, "Gateway
 * response types" and "Usage plans"): {@code THROTTLED}, a rate or burst limit, with
 * {@code {"message":"Too Many Requests"}} / {@code TooManyRequestsException}, which clears in
 * seconds ({@code rate_limited}); and {@code QUOTA_EXCEEDED}, the usage plan's daily, weekly or
 * monthly quota spent, with {@code {"message":"Limit Exceeded"}} / {@code LimitExceededException},
 * which clears at the quota period's end ({@code quota_exhausted}, not retried).
 *
 * <p>The throttling error types of other AWS services ({@code ThrottlingException},
 * {@code ProvisionedThroughputExceededException}, {@code RequestLimitExceeded}, {@code SlowDown},
 * ...) are {@code rate_limited} on a 4xx. {@code LimitExceededException} on any status other than
 * 429 is left to the status rules: several services use it for a resource-count limit, which no
 * wait clears. The error type is kept as attribute {@code error_type}.
 */
public final class AwsDialect implements Dialect {

    public static final AwsDialect INSTANCE = new AwsDialect();

    private static final Set<String> THROTTLING = Set.of(
            "toomanyrequestsexception", "toomanyrequests", "throttlingexception", "throttling",
            "throttledexception", "requestlimitexceeded", "requestthrottled", "requestthrottledexception",
            "provisionedthroughputexceededexception", "slowdown", "bandwidthlimitexceeded",
            "ec2throttledexception", "throttlingerror");
    private static final String QUOTA = "limitexceededexception";

    private AwsDialect() {
    }

    @Override
    public String id() {
        return "aws";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (in.status() < 400) {
            return Optional.empty();
        }
        JsonNode json = in.json().orElse(null);
        String type = errorType(in.header("x-amzn-ErrorType"));
        if (type == null) {
            type = errorType(Signals.text(json, "__type"));
        }
        boolean gateway = in.has("x-amzn-RequestId") || in.has("x-amz-apigw-id") || in.has("x-amz-request-id");
        String message = Signals.text(json, "message");
        if (type == null && !(gateway && message != null)) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder().attribute("error_type", type);
        String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
        String m = message == null ? "" : message.strip().toLowerCase(Locale.ROOT);
        if (in.status() == 429 && (t.equals(QUOTA) || (t.isEmpty() && m.equals("limit exceeded")))) {
            return Optional.of(r.outcome(Outcome.QUOTA_EXHAUSTED).build());
        }
        if (in.status() < 500 && (THROTTLING.contains(t) || (t.isEmpty() && m.equals("too many requests")))) {
            return Optional.of(r.outcome(Outcome.RATE_LIMITED).build());
        }
        if (type == null) {
            return Optional.empty(); // an API Gateway message that says nothing about limits
        }
        return Optional.of(r.build());
    }

    /** The bare error name: {@code X:http://...} → {@code X}, {@code ns#X} → {@code X}; else {@code null}. */
    static @Nullable String errorType(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String v = value.strip();
        int colon = v.indexOf(':');
        if (colon >= 0) {
            v = v.substring(0, colon);
        }
        int hash = v.lastIndexOf('#');
        if (hash >= 0) {
            v = v.substring(hash + 1);
        }
        v = v.strip();
        return v.isEmpty() || v.length() > 128 ? null : v;
    }
}
