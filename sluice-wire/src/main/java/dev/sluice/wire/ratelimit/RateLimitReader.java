package dev.sluice.wire.ratelimit;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.sf.BareItem;
import dev.sluice.wire.sf.InnerList;
import dev.sluice.wire.sf.Item;
import dev.sluice.wire.sf.Member;
import dev.sluice.wire.sf.Parameters;
import dev.sluice.wire.sf.SfBoolean;
import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.SfDate;
import dev.sluice.wire.sf.SfDecimal;
import dev.sluice.wire.sf.SfDisplayString;
import dev.sluice.wire.sf.SfInteger;
import dev.sluice.wire.sf.SfString;
import dev.sluice.wire.sf.SfToken;
import dev.sluice.wire.sf.StructuredFieldParseException;
import dev.sluice.wire.sf.StructuredFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code RateLimit-Policy} and {@code RateLimit} field values
 * (draft-ietf-httpapi-ratelimit-headers-11; SPEC §2.1) into {@link QuotaPolicy} and
 * {@link ServiceLimit} records, tolerantly:
 *
 * <ul>
 *   <li>several field lines are combined with {@code ", "} first (RFC 9110 §5.3), so two lines an
 *       intermediary kept apart, or joined, read the same (R06);
 *   <li>unknown parameters are ignored; a member that is an Inner List, or whose value is not a
 *       String (see {@link MemberNames}), or that lacks its required non-negative Integer
 *       ({@code q} for a policy, {@code r} for a service limit) is skipped and the others kept;
 *   <li>a known optional parameter of the wrong type or range ({@code w} not a positive Integer,
 *       {@code t} negative, {@code qu} not a String, {@code pk} not a Byte Sequence) is ignored as
 *       if absent;
 *   <li>a field value that is not a structured-field List at all yields no members (RFC 9651 §4.2:
 *       the whole field is ignored).
 * </ul>
 *
 * Each of these leaves a reason in {@link ReadResult#problems()}. Nothing here throws on any field
 * text: the only exceptions are {@link NullPointerException}s for null arguments.
 *
 * <p>Stateless and thread-safe.
 */
public final class RateLimitReader {

    /** The draft-11 policy field name. */
    public static final String POLICY_FIELD = "RateLimit-Policy";
    /** The draft-11 service limit field name. */
    public static final String RATELIMIT_FIELD = "RateLimit";

    private RateLimitReader() {
    }

    // ---- RateLimit-Policy ----

    /** Reads the {@code RateLimit-Policy} field lines of {@code fields}, strings only. */
    public static ReadResult<QuotaPolicy> readPolicies(HttpFields fields) {
        return readPolicies(fields.all(POLICY_FIELD), MemberNames.STRINGS_ONLY);
    }

    /**
     * Reads the field {@code fieldName} of {@code fields} as a {@code RateLimit-Policy} list, e.g.
     * Atlassian's {@code Beta-RateLimit-Policy}.
     */
    public static ReadResult<QuotaPolicy> readPolicies(HttpFields fields, String fieldName, MemberNames names) {
        return readPolicies(fields.all(fieldName), names);
    }

    /** Reads one {@code RateLimit-Policy} field value, strings only. */
    public static ReadResult<QuotaPolicy> readPolicies(String fieldValue) {
        return readPolicies(List.of(fieldValue), MemberNames.STRINGS_ONLY);
    }

    /** Reads {@code RateLimit-Policy} field lines, strings only. */
    public static ReadResult<QuotaPolicy> readPolicies(List<String> fieldLines) {
        return readPolicies(fieldLines, MemberNames.STRINGS_ONLY);
    }

    /**
     * Reads {@code RateLimit-Policy} field lines, combined with {@code ", "}.
     *
     * @param fieldLines the field lines in order; empty when the field is absent
     * @param names which item values name a policy
     */
    public static ReadResult<QuotaPolicy> readPolicies(List<String> fieldLines, MemberNames names) {
        return readEach(fieldLines, names, "q", (name, quota, p, i, problems) -> {
            Long window = optionalInteger(p, "w", 1, i, name, problems);
            String unit = null;
            BareItem qu = p.get("qu");
            if (qu instanceof SfString s) {
                unit = s.value();
            } else if (qu != null) {
                problems.add(describe(i, name) + ": qu ignored, " + what(qu) + " is not a String");
            }
            return new QuotaPolicy(name, quota, window, unit, partitionKey(p, i, name, problems));
        });
    }

    // ---- RateLimit ----

    /** Reads the {@code RateLimit} field lines of {@code fields}, strings only. */
    public static ReadResult<ServiceLimit> readServiceLimits(HttpFields fields) {
        return readServiceLimits(fields.all(RATELIMIT_FIELD), MemberNames.STRINGS_ONLY);
    }

    /**
     * Reads the field {@code fieldName} of {@code fields} as a {@code RateLimit} list, e.g.
     * Atlassian's {@code Beta-RateLimit}.
     */
    public static ReadResult<ServiceLimit> readServiceLimits(HttpFields fields, String fieldName, MemberNames names) {
        return readServiceLimits(fields.all(fieldName), names);
    }

    /** Reads one {@code RateLimit} field value, strings only. */
    public static ReadResult<ServiceLimit> readServiceLimits(String fieldValue) {
        return readServiceLimits(List.of(fieldValue), MemberNames.STRINGS_ONLY);
    }

    /** Reads {@code RateLimit} field lines, strings only. */
    public static ReadResult<ServiceLimit> readServiceLimits(List<String> fieldLines) {
        return readServiceLimits(fieldLines, MemberNames.STRINGS_ONLY);
    }

    /**
     * Reads {@code RateLimit} field lines, combined with {@code ", "}.
     *
     * @param fieldLines the field lines in order; empty when the field is absent
     * @param names which item values name a policy
     */
    public static ReadResult<ServiceLimit> readServiceLimits(List<String> fieldLines, MemberNames names) {
        return readEach(fieldLines, names, "r", (name, remaining, p, i, problems) -> new ServiceLimit(name, remaining,
                optionalInteger(p, "t", 0, i, name, problems), partitionKey(p, i, name, problems)));
    }

    /** Reads one named member whose {@code required} parameter is a non-negative Integer. */
    @FunctionalInterface
    private interface MemberReader<T> {
        T read(String name, long required, Parameters p, int index, List<String> problems);
    }

    /**
     * The loop both fields share: each member that names a policy and carries {@code required} as a
     * non-negative Integer is read by {@code reader}; every other member is skipped with a problem.
     */
    private static <T> ReadResult<T> readEach(List<String> fieldLines, MemberNames names, String required,
            MemberReader<T> reader) {
        List<String> problems = new ArrayList<>(0);
        List<Member> members = parse(fieldLines, problems);
        List<T> read = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            Item item = policyItem(members.get(i), i, names, problems);
            if (item == null) {
                continue;
            }
            String name = Objects.requireNonNull(name(item, names), "policyItem keeps only named items");
            Parameters p = item.parameters();
            Long value = nonNegativeInteger(p.get(required));
            if (value == null) {
                problems.add(describe(i, name) + " skipped: " + required + " (required) is " + what(p.get(required))
                        + ", not a non-negative Integer");
                continue;
            }
            read.add(reader.read(name, value, p, i, problems));
        }
        return new ReadResult<>(read, problems);
    }

    // ---- shared ----

    private static List<Member> parse(List<String> fieldLines, List<String> problems) {
        if (fieldLines.isEmpty()) {
            return List.of();
        }
        try {
            return StructuredFields.parseList(fieldLines);
        } catch (StructuredFieldParseException e) {
            problems.add("field ignored, not a structured-field List (RFC 9651 §4.2): " + e.getMessage());
            return List.of();
        }
    }

    /** The member as an item with a usable name, or null (with a reason) when it must be skipped. */
    private static @Nullable Item policyItem(Member member, int index, MemberNames names, List<String> problems) {
        if (member instanceof InnerList) {
            problems.add("member " + (index + 1) + " skipped: an Inner List, not an Item");
            return null;
        }
        Item item = (Item) member;
        if (name(item, names) == null) {
            problems.add("member " + (index + 1) + " skipped: its value is " + what(item.bareItem())
                    + (names == MemberNames.STRINGS_ONLY ? ", not a String naming a policy"
                            : ", neither a String nor a Token naming a policy"));
            return null;
        }
        return item;
    }

    private static @Nullable String name(Item item, MemberNames names) {
        return switch (item.bareItem()) {
            case SfString s -> s.value();
            case SfToken t when names == MemberNames.STRINGS_OR_TOKENS -> t.value();
            default -> null;
        };
    }

    private static @Nullable Long nonNegativeInteger(@Nullable BareItem value) {
        return value instanceof SfInteger i && i.value() >= 0 ? i.value() : null;
    }

    private static @Nullable Long optionalInteger(
            Parameters p, String key, long min, int index, String name, List<String> problems) {
        BareItem value = p.get(key);
        if (value == null) {
            return null;
        }
        if (value instanceof SfInteger i && i.value() >= min) {
            return i.value();
        }
        problems.add(describe(index, name) + ": " + key + " ignored, " + what(value)
                + " is not an Integer >= " + min);
        return null;
    }

    private static @Nullable SfByteSequence partitionKey(Parameters p, int index, String name, List<String> problems) {
        BareItem value = p.get("pk");
        if (value == null || value instanceof SfByteSequence) {
            return (SfByteSequence) value;
        }
        problems.add(describe(index, name) + ": pk ignored, " + what(value) + " is not a Byte Sequence");
        return null;
    }

    private static String describe(int index, String name) {
        return "member " + (index + 1) + " (\"" + name + "\")";
    }

    private static String what(@Nullable BareItem value) {
        if (value == null) {
            return "absent";
        }
        return switch (value) {
            case SfInteger i -> "the Integer " + i.value();
            case SfString s -> "a String";
            case SfToken t -> "the Token " + t.value();
            case SfByteSequence b -> "a Byte Sequence";
            case SfDecimal d -> "a Decimal";
            case SfBoolean b -> "a Boolean";
            case SfDate d -> "a Date";
            case SfDisplayString d -> "a Display String";
        };
    }
}
