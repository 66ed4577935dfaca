package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.sluice.wire.retryafter.RetryAfter;
import dev.sluice.wire.retryafter.RetryAfterHint;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares a snapshot with a vector's {@code expected} object, key by key. Top-level
 * {@code remaining}, {@code limit}, {@code window_s}, {@code reset_in_s}, {@code reset_at_epoch},
 * {@code used} and {@code policy} describe the first policy of the snapshot (the one the dialect
 * reports first). An expectation key this checker does not know fails the vector, so that no
 * expected field goes unasserted.
 */
final class VectorChecker {

    /** A value SPEC.md decides differently from the vector, with the reason. */
    record SpecOverride(String vectorId, String key, JsonNode value, String reason) {
    }

    private final Map<String, SpecOverride> overrides = new HashMap<>();

    VectorChecker override(String vectorId, String key, Number value, String reason) {
        JsonNode v = value == null ? JsonNodeFactory.instance.nullNode()
                : JsonNodeFactory.instance.numberNode(new BigDecimal(value.toString()));
        overrides.put(vectorId + "/" + key, new SpecOverride(vectorId, key, v, reason));
        return this;
    }

    VectorChecker overrideKind(String vectorId, String kind, String reason) {
        overrides.put(vectorId + "/kind", new SpecOverride(vectorId, "kind", JsonNodeFactory.instance.textNode(kind), reason));
        return this;
    }

    /** Every mismatch, one line each; empty when the snapshot meets every expectation. */
    List<String> check(HeaderVectors.Vector vector, RateLimitSnapshot s, Instant localNow) {
        List<String> errors = new ArrayList<>();
        PolicySnapshot primary = s.policies().isEmpty() ? null : s.policies().get(0);
        for (Map.Entry<String, JsonNode> f : vector.expected().properties()) {
            String key = f.getKey();
            SpecOverride o = overrides.get(vector.id() + "/" + key);
            JsonNode want = o != null ? o.value() : f.getValue();
            switch (key) {
                case "notes" -> {
                }
                case "kind" -> eq(errors, key, want.asText(), s.outcome().wireName());
                case "retry_after_s" -> millis(errors, key, want, s.retryAfterMillis());
                case "remaining" -> eq(errors, key, longOrNull(want), primary == null ? null : primary.remaining());
                case "limit" -> eq(errors, key, longOrNull(want), primary == null ? null : primary.quota());
                case "window_s" -> eq(errors, key, longOrNull(want), primary == null ? null : primary.windowSeconds());
                case "used" -> eq(errors, key, longOrNull(want), primary == null ? null : primary.used());
                case "reset_in_s" -> millis(errors, key, want, primary == null ? null : primary.resetMillis());
                case "reset_at_epoch" -> millis(errors, key, want,
                        primary == null || primary.resetAt() == null ? null : primary.resetAt().toEpochMilli());
                case "policy" -> eq(errors, key, want.asText(), primary == null ? null : primary.name());
                case "pk_decoded" -> {
                    String pk = primary == null ? null : primary.attributes().get("pk");
                    eq(errors, key, want.asText(), pk == null ? null
                            : new String(Base64.getDecoder().decode(pk), java.nio.charset.StandardCharsets.US_ASCII));
                }
                case "scope", "bucket", "resource", "error_code", "non_conformant_date" ->
                        eq(errors, key, want.isNull() ? null : want.asText(), s.attributes().get(key));
                case "violated_policies" -> {
                    List<String> names = new ArrayList<>();
                    want.forEach(n -> names.add(n.asText()));
                    eq(errors, key, names, s.violatedPolicies());
                }
                case "retry_after_at_epoch" -> {
                    Instant responseTime = RetryAfter.responseTime(vector.response().headers(), localNow);
                    RetryAfterHint hint = RetryAfter.parse(
                            vector.response().headers().first("Retry-After").orElse(null), responseTime);
                    Long at = hint instanceof RetryAfterHint.Delay d && d.notBefore() != null
                            ? d.notBefore().toEpochMilli() : null;
                    millis(errors, key, want, at);
                }
                case "policies" -> {
                    for (JsonNode p : want) {
                        policy(errors, s, p.get("id").isNull() ? null : p.get("id").asText(), p);
                    }
                }
                case "limits" -> want.properties().forEach(e -> policy(errors, s, e.getKey(), e.getValue()));
                case "per_app" -> policy(errors, s, "per-app-api-usage", want);
                case "endpoint_limit" -> policy(errors, s, "tickets-index", want);
                default -> errors.add("unhandled expectation key '" + key + "'");
            }
        }
        return errors;
    }

    private static void policy(List<String> errors, RateLimitSnapshot s, String name, JsonNode want) {
        PolicySnapshot p = s.policy(name).orElse(null);
        if (p == null) {
            errors.add("policy '" + name + "' missing; got " + s.policies());
            return;
        }
        want.properties().forEach(e -> {
            String k = "policy " + name + "." + e.getKey();
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "id" -> {
                }
                case "q", "limit", "total" -> eq(errors, k, longOrNull(v), p.quota());
                case "w" -> eq(errors, k, longOrNull(v), p.windowSeconds());
                case "r", "remaining" -> eq(errors, k, longOrNull(v), p.remaining());
                case "used" -> eq(errors, k, longOrNull(v), p.used());
                case "t" -> millis(errors, k, v, p.resetMillis());
                case "reset_in_s", "resets_in_s" -> millis(errors, k, v, p.resetMillis());
                case "qu" -> eq(errors, k, v.asText(), p.quotaUnit());
                case "pk_base64" -> {
                    // compare decoded bytes: the published pk has non-zero pad bits (RFC 9651 §4.2.7)
                    String got = p.attributes().get("pk");
                    eq(errors, k, Base64.getEncoder().encodeToString(Base64.getDecoder().decode(v.asText())),
                            got == null ? null : Base64.getEncoder().encodeToString(Base64.getDecoder().decode(got)));
                }
                case "burst", "appName" -> eq(errors, k, v.asText(), p.attributes().get(e.getKey()));
                default -> errors.add("unhandled policy expectation key '" + e.getKey() + "'");
            }
        });
    }

    private static Long longOrNull(JsonNode v) {
        return v == null || v.isNull() ? null : v.asLong();
    }

    /** Seconds (possibly fractional) expected, milliseconds got. */
    private static void millis(List<String> errors, String key, JsonNode wantSeconds, Long gotMillis) {
        Long want = wantSeconds == null || wantSeconds.isNull() ? null
                : wantSeconds.decimalValue().movePointRight(3).longValueExact();
        eq(errors, key + " (ms)", want, gotMillis);
    }

    private static void eq(List<String> errors, String key, Object want, Object got) {
        if (!Objects.equals(want, got)) {
            errors.add(key + ": expected " + want + " but was " + got);
        }
    }
}
