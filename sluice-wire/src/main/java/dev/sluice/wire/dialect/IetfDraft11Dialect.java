package dev.sluice.wire.dialect;

import dev.sluice.wire.ratelimit.MemberNames;
import dev.sluice.wire.ratelimit.QuotaPolicy;
import dev.sluice.wire.ratelimit.RateLimitReader;
import dev.sluice.wire.ratelimit.ServiceLimit;
import dev.sluice.wire.sf.BareItem;
import dev.sluice.wire.sf.Item;
import dev.sluice.wire.sf.Member;
import dev.sluice.wire.sf.SfBoolean;
import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.SfDecimal;
import dev.sluice.wire.sf.SfInteger;
import dev.sluice.wire.sf.SfString;
import dev.sluice.wire.sf.SfToken;
import dev.sluice.wire.sf.StructuredFieldParseException;
import dev.sluice.wire.sf.StructuredFields;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The IETF {@code RateLimit} and {@code RateLimit-Policy} fields of
 * draft-ietf-httpapi-ratelimit-headers-11 (the same syntax since -08): Structured Field Lists whose
 * members are Strings naming a policy, {@code "burst";q=20;w=2} and {@code "burst";r=7;t=2}
 * (SPEC §2.1). Read with {@link RateLimitReader}. Id {@code ietf-draft-11}.
 *
 * <p>Each {@code RateLimit} member is joined with the {@code RateLimit-Policy} member of the same
 * name (and partition key) into one policy: {@code q}, {@code w}, {@code qu} from the policy,
 * {@code r}, {@code t} from the service limit. Policies come in {@code RateLimit} order, then the
 * policies that have no {@code RateLimit} member. Per SPEC §2.1 a member that is not a String item
 * is skipped (the token-named examples of draft -10 are therefore ignored, as is a {@code RateLimit}
 * member without its required {@code r}). {@code pk} is kept as attribute {@code pk} (canonical
 * base64 of the decoded bytes) and unregistered parameters ({@code burst=1000}) as attributes.
 * The policy kind follows {@code w}: an hour or more is a quota policy.
 *
 * <p>Other servers use the same syntax under a prefixed name (Atlassian's {@code Beta-RateLimit});
 * {@link #withFieldPrefix(String, String)} makes an instance for them. Immutable and thread-safe.
 */
public final class IetfDraft11Dialect implements Dialect {

    private static final IetfDraft11Dialect STANDARD = new IetfDraft11Dialect("ietf-draft-11", "");
    private static final Set<String> REGISTERED = Set.of("q", "w", "qu", "pk", "r", "t");

    private final String id;
    private final String policyField;
    private final String limitField;

    private IetfDraft11Dialect(String id, String prefix) {
        this.id = Objects.requireNonNull(id, "id");
        this.policyField = prefix + RateLimitReader.POLICY_FIELD;
        this.limitField = prefix + RateLimitReader.RATELIMIT_FIELD;
    }

    /** Reads {@code RateLimit} and {@code RateLimit-Policy}; id {@code ietf-draft-11}. */
    public static IetfDraft11Dialect standard() {
        return STANDARD;
    }

    /**
     * Reads {@code <prefix>RateLimit} and {@code <prefix>RateLimit-Policy}.
     *
     * @param id the id to report
     * @param prefix the field-name prefix, e.g. {@code "Beta-"}
     */
    public static IetfDraft11Dialect withFieldPrefix(String id, String prefix) {
        return new IetfDraft11Dialect(id, Objects.requireNonNull(prefix, "prefix"));
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        List<PolicySnapshot.Builder> policies = readPolicies(in);
        if (policies.isEmpty()) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        policies.forEach(p -> r.policy(p.build()));
        return Optional.of(r.build());
    }

    /** The joined policies as builders, so that a wrapping dialect can add what it knows. */
    List<PolicySnapshot.Builder> readPolicies(DialectInput in) {
        if (!in.has(limitField) && !in.has(policyField)) {
            return List.of();
        }
        List<QuotaPolicy> quotas = RateLimitReader
                .readPolicies(in.headers(), policyField, MemberNames.STRINGS_ONLY).values();
        List<ServiceLimit> limits = RateLimitReader
                .readServiceLimits(in.headers(), limitField, MemberNames.STRINGS_ONLY).values();
        if (quotas.isEmpty() && limits.isEmpty()) {
            return List.of();
        }
        Map<String, Map<String, String>> extensions = extensionParameters(in.headers().all(policyField));
        List<PolicySnapshot.Builder> out = new ArrayList<>(Math.max(quotas.size(), limits.size()));
        boolean[] joined = new boolean[quotas.size()];
        for (ServiceLimit limit : limits) {
            PolicySnapshot.Builder p = PolicySnapshot.builder()
                    .name(limit.name())
                    .remaining(limit.remaining());
            if (limit.resetSeconds() != null) {
                // t is delta seconds; an epoch misplaced there is read as one (ResetUnit)
                ResetUnit.DELTA_SECONDS.apply(Long.toString(limit.resetSeconds()), in.responseTime(), p);
            }
            for (int i = 0; i < quotas.size(); i++) {
                QuotaPolicy q = quotas.get(i);
                if (!joined[i] && q.name().equals(limit.name()) && samePartition(q.partitionKey(), limit.partitionKey())) {
                    joined[i] = true;
                    policyFields(p, q, extensions);
                    break;
                }
            }
            p.attribute("pk", base64(limit.partitionKey()));
            out.add(p);
        }
        for (int i = 0; i < quotas.size(); i++) {
            if (!joined[i]) {
                PolicySnapshot.Builder p = PolicySnapshot.builder().name(quotas.get(i).name());
                policyFields(p, quotas.get(i), extensions);
                out.add(p);
            }
        }
        return out;
    }

    private static void policyFields(PolicySnapshot.Builder p, QuotaPolicy q, Map<String, Map<String, String>> extensions) {
        p.quota(q.quota()).windowSeconds(q.windowSeconds()).quotaUnit(q.effectiveQuotaUnit());
        p.attribute("pk", base64(q.partitionKey()));
        extensions.getOrDefault(q.name(), Map.of()).forEach(p::attribute);
    }

    private static boolean samePartition(@Nullable SfByteSequence a, @Nullable SfByteSequence b) {
        return a == null || b == null || Arrays.equals(a.bytes(), b.bytes());
    }

    private static @Nullable String base64(@Nullable SfByteSequence pk) {
        return pk == null ? null : Base64.getEncoder().encodeToString(pk.bytes());
    }

    /**
     * Unregistered parameters of each String-named policy member ({@code burst=1000}), which the
     * codec ignores; kept as attributes for display. An unparseable field gives none.
     */
    private static Map<String, Map<String, String>> extensionParameters(List<String> lines) {
        if (lines.isEmpty()) {
            return Map.of();
        }
        List<Member> members;
        try {
            members = StructuredFields.parseList(lines);
        } catch (StructuredFieldParseException e) {
            return Map.of();
        }
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Member m : members) {
            if (m instanceof Item item && item.bareItem() instanceof SfString name) {
                Map<String, String> params = new LinkedHashMap<>();
                item.parameters().forEach((k, v) -> {
                    if (!REGISTERED.contains(k)) {
                        params.put(k, text(v));
                    }
                });
                if (!params.isEmpty()) {
                    out.putIfAbsent(name.value(), params);
                }
            }
        }
        return out;
    }

    private static String text(BareItem v) {
        return switch (v) {
            case SfInteger i -> Long.toString(i.value());
            case SfDecimal d -> d.toBigDecimal().toPlainString();
            case SfString s -> s.value();
            case SfToken t -> t.value();
            case SfBoolean b -> Boolean.toString(b.value());
            default -> StructuredFields.appendBareItem(new StringBuilder(), v).toString();
        };
    }
}
