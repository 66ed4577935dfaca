package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Anthropic: one policy per family of {@code anthropic-ratelimit-<family>-limit},
 * {@code -remaining} and {@code -reset}, where the family is {@code requests}, {@code tokens},
 * {@code input-tokens}, {@code output-tokens}, ... and the reset is an RFC 3339 instant, converted
 * to a wait with the response's own time (its {@code Date}) and clamped at zero (R05). Id
 * {@code anthropic}.
 *
 * <p>Also recognised by an error body {@code {"type":"error","error":{"type":...}}}:
 * {@code rate_limit_error} is a rate limit, {@code overloaded_error} (sent with status 529) is
 * {@code overloaded} and never a quota matter (R09).
 */
public final class AnthropicDialect implements Dialect {

    public static final AnthropicDialect INSTANCE = new AnthropicDialect();

    private static final String PREFIX = "anthropic-ratelimit-";
    private static final String[] SUFFIXES = {"-limit", "-remaining", "-reset"};

    private AnthropicDialect() {
    }

    @Override
    public String id() {
        return "anthropic";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        Set<String> families = new LinkedHashSet<>();
        for (String name : in.names()) {
            if (name.startsWith(PREFIX)) {
                for (String suffix : SUFFIXES) {
                    if (name.endsWith(suffix) && name.length() > PREFIX.length() + suffix.length()) {
                        families.add(name.substring(PREFIX.length(), name.length() - suffix.length()));
                    }
                }
            }
        }
        String errorType = in.status() >= 400 ? errorType(in.json().orElse(null)) : null;
        if (families.isEmpty() && errorType == null) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        for (String family : families) {
            String base = PREFIX + family;
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(family)
                    .quota(in.count(base + "-limit"))
                    .remaining(in.count(base + "-remaining"))
                    .quotaUnit(OpenAiDialect.unitOf(family));
            // RFC 3339 as documented; an epoch or a delta is read for what it is (ResetUnit)
            ResetUnit.AUTO.applyLongest(in.members(base + "-reset"), in.responseTime(), p);
            r.policy(p.build());
        }
        if (errorType != null) {
            r.attribute("error_type", errorType);
            switch (errorType) {
                case "overloaded_error" -> r.outcome(Outcome.OVERLOADED);
                case "rate_limit_error" -> r.outcome(Outcome.RATE_LIMITED);
                default -> {
                    // other errors (invalid_request_error, ...) are decided by status
                }
            }
        }
        return Optional.of(r.build());
    }

    /** {@code error.type} of an Anthropic error body, or {@code null}. */
    private static @Nullable String errorType(@Nullable JsonNode json) {
        if (json == null || !"error".equals(Signals.text(json, "type"))) {
            return null;
        }
        String t = Signals.text(json, "error", "type");
        return t != null && t.endsWith("_error") ? t : null;
    }
}
