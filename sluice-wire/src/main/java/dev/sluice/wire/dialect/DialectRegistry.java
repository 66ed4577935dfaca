package dev.sluice.wire.dialect;

import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.retryafter.RetryAfter;
import dev.sluice.wire.retryafter.RetryAfterHint;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.ListMembers;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads any response into one {@link RateLimitSnapshot}, whatever dialect the server speaks
 * (SPEC §2.6). Entry points: {@link #standard()} and {@link #read(ResponseView, Instant)}.
 *
 * <h2>How a response is read</h2>
 * <ol>
 *   <li>The dialects are asked in order; the <b>first</b> that recognises the response supplies the
 *       policies, the dialect id and any dialect-specific hints. (A response that mixes families,
 *       such as Jira's {@code Beta-RateLimit} with {@code X-RateLimit-*}, is read in the dialect
 *       that comes first.)</li>
 *   <li>The retry-after hint is the <b>longest</b> valid one of: the dialect's own (Discord's
 *       body, Google {@code RetryInfo}), {@code retry-after-ms} / {@code x-ms-retry-after-ms},
 *       {@code Retry-After} (SPEC §2.4; an HTTP-date is measured from the response's {@code Date}),
 *       the problem's {@code retry_after_s}, and on an error status a {@code retry_after}-like
 *       member anywhere in a JSON body (Telegram's {@code parameters.retry_after},
 *       {@code error.retry_after}, ...). Every field line and list member counts: a field sent
 *       twice is one field (RFC 9110 §5.3). Longest, because a hint is never undercut
 *       (SPEC §2.4): {@code Retry-After: 5} with {@code retry-after-ms: 1500} is 5 s. One
 *       exception keeps precision: when the longest is a whole number of seconds and another hint
 *       lies less than a second below it ({@code Retry-After: 65} beside Discord's
 *       {@code retry_after: 64.57}), the whole seconds are that hint rounded up for the
 *       {@code 1*DIGIT} grammar, and the precise value is kept. Malformed values are skipped
 *       (R01).</li>
 *   <li>{@code cached} is true when {@code Age} is present (SPEC §2.5), and {@code age} holds its
 *       value; the hint stays as the origin stated it (for an HTTP-date without {@code Date}, the
 *       origin's time is taken as the local clock less {@code Age}), and
 *       {@link RateLimitSnapshot#suggestedWait(Duration)} subtracts the age.</li>
 *   <li>Policies reported twice under one name (and partition key), e.g. from two
 *       {@code RateLimit} field lines, are merged into one: the lowest remaining, the longest reset
 *       (SPEC §2.4).</li>
 *   <li>The outcome follows the rules of SPEC §4.2 as described on {@link OutcomeRules}.</li>
 * </ol>
 *
 * <p>{@code read} never throws for any header value or body, and never yields a negative duration
 * or remaining count; a dialect that throws is treated as not matching.
 *
 * <p>Immutable and thread-safe; build once and share.
 */
public final class DialectRegistry {

    private static final DialectRegistry STANDARD = builder().registerStandard().build();

    private final List<Dialect> dialects;
    private final ErrorCodeTable errorCodes;

    private DialectRegistry(List<Dialect> dialects, ErrorCodeTable errorCodes) {
        this.dialects = List.copyOf(dialects);
        this.errorCodes = errorCodes;
    }

    /**
     * The registry with every dialect Sluice ships, in this precedence: IETF draft-11, Atlassian's
     * {@code Beta-RateLimit}, IETF draft-07, Zendesk, GitLab, IETF draft-03..06, Anthropic, Discord,
     * OpenAI, GitHub, Shopify, Salesforce, Azure, Google, remaining-credits, generic
     * {@code x-ratelimit-*}, Cloudflare, AWS, RFC 9457 problem details, error bodies, bare
     * {@code Retry-After}.
     */
    public static DialectRegistry standard() {
        return STANDARD;
    }

    /** The standard dialects, in precedence order (a fresh list). */
    public static List<Dialect> standardDialects() {
        return List.of(
                IetfDraft11Dialect.standard(),
                AtlassianBetaDialect.INSTANCE,
                IetfDraft07Dialect.INSTANCE,
                ZendeskDialect.INSTANCE,
                GitLabDialect.INSTANCE,
                IetfDraft03Dialect.INSTANCE,
                AnthropicDialect.INSTANCE,
                DiscordDialect.INSTANCE,
                OpenAiDialect.INSTANCE,
                GitHubDialect.INSTANCE,
                ShopifyDialect.INSTANCE,
                SalesforceDialect.INSTANCE,
                AzureDialect.INSTANCE,
                GoogleRpcDialect.INSTANCE,
                RemainingCreditsDialect.INSTANCE,
                XRateLimitDialect.standard(),
                CloudflareDialect.INSTANCE,
                AwsDialect.INSTANCE,
                ProblemDetailsDialect.INSTANCE,
                ErrorBodyDialect.INSTANCE,
                RetryAfterDialect.INSTANCE);
    }

    /** An empty builder: register dialects in precedence order, e.g. your own, then the standard ones. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this registry's dialects, to add or remove some. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.dialects.addAll(dialects);
        b.errorCodes = errorCodes;
        return b;
    }

    /** The dialects in precedence order. */
    public List<Dialect> dialects() {
        return dialects;
    }

    /** The vendor error codes and phrases read from 4xx bodies ({@link ErrorCodeTable#standard()} unless set). */
    public ErrorCodeTable errorCodes() {
        return errorCodes;
    }

    /**
     * Reads one response.
     *
     * @param response the response (status, fields, body when read)
     * @param localNow the caller's wall clock at receipt; used only when the response has no valid
     *     {@code Date} (then relative values are measured from it)
     * @return the snapshot; never {@code null}
     * @throws NullPointerException if an argument is {@code null}
     */
    public RateLimitSnapshot read(ResponseView response, Instant localNow) {
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(localNow, "localNow");
        DialectInput in = new DialectInput(response, localNow, errorCodes);

        String dialectId = null;
        DialectReading reading = null;
        for (Dialect d : dialects) {
            Optional<DialectReading> r;
            try {
                r = d.read(in);
            } catch (RuntimeException e) {
                continue; // a broken dialect must not break reading (class comment)
            }
            if (r != null && r.isPresent()) {
                dialectId = d.id();
                reading = r.get();
                break;
            }
        }
        List<PolicySnapshot> policies = reading == null ? List.of() : mergeDuplicates(reading.policies());
        ProblemDetails problem = in.problem().orElse(null);

        Duration age = in.age();
        Duration retryAfter = retryAfter(in, reading, problem, localNow, age);
        List<String> violated = violatedPolicies(problem, reading);
        Outcome outcome = OutcomeRules.classify(in, reading, policies, violated, retryAfter != null);

        String violatedPolicy = violated.isEmpty() ? null : violated.get(0);
        if (violatedPolicy == null && outcome.isLimit()) {
            violatedPolicy = exhaustedPolicyName(policies, outcome);
        }
        Instant quotaResetAt = quotaResetAt(in, outcome, policies, violatedPolicy, retryAfter);
        return new RateLimitSnapshot(
                response.status(),
                outcome,
                dialectId,
                retryAfter,
                response.headers().contains("Age"),
                policies,
                violatedPolicy,
                quotaResetAt,
                attributes(in, reading),
                violated,
                age);
    }

    /** The fields whose HTTP-date may be sent in a lenient, non-RFC 9110 form. */
    private static final String[] DATE_FIELDS = {"Date", RetryAfter.FIELD, "RateLimit-ResetTime"};

    /**
     * The dialect's attributes, plus {@value #NON_CONFORMANT_DATE} naming every field whose
     * HTTP-date was read only leniently (a numeric or spelled-out zone, RFC 9110 §5.6.7).
     */
    private static Map<String, String> attributes(DialectInput in, @Nullable DialectReading reading) {
        Map<String, String> attributes = reading == null ? Map.of() : reading.attributes();
        StringBuilder lenient = null;
        for (String field : DATE_FIELDS) {
            for (String value : ListMembers.of(in.all(field))) {
                if (!HttpDate.conforms(value) && HttpDate.parse(value, in.responseTime()) != null) {
                    lenient = lenient == null ? new StringBuilder() : lenient.append(", ");
                    lenient.append(field);
                    break;
                }
            }
        }
        if (lenient == null) {
            return attributes;
        }
        Map<String, String> out = new LinkedHashMap<>(attributes);
        out.put(NON_CONFORMANT_DATE, lenient.toString());
        return out;
    }

    /**
     * The snapshot attribute that lists, comma-separated, the fields ({@code Date},
     * {@code Retry-After}, {@code RateLimit-ResetTime}) whose HTTP-date was not in an RFC 9110
     * form but was read leniently ({@link HttpDate}).
     */
    public static final String NON_CONFORMANT_DATE = "non_conformant_date";

    private static @Nullable Duration retryAfter(DialectInput in, @Nullable DialectReading reading,
            @Nullable ProblemDetails problem, Instant localNow, @Nullable Duration age) {
        List<Duration> hints = new ArrayList<>(4);
        if (reading != null && reading.retryAfter() != null) {
            hints.add(reading.retryAfter());
        }
        for (String msField : new String[] {RetryAfter.FIELD_MS, "x-ms-retry-after-ms"}) {
            if (RetryAfter.parseMillisLines(in.all(msField)) instanceof RetryAfterHint.Delay d) {
                hints.add(d.duration());
            }
        }
        // an HTTP-date counts from the origin's time: its Date, else (cached) the local clock less Age
        Instant origin = in.serverDated() || age == null ? in.responseTime() : ResetUnit.minus(localNow, age);
        if (RetryAfter.parseLines(in.all(RetryAfter.FIELD), origin) instanceof RetryAfterHint.Delay d) {
            hints.add(d.duration());
        }
        if (problem != null && problem.retryAfterSeconds() != null) {
            long s = Math.min(problem.retryAfterSeconds(), WireNumbers.MAX_DURATION.getSeconds());
            hints.add(Duration.ofSeconds(s));
        }
        if (in.status() >= 400) {
            Duration body = Signals.bodyRetryAfter(in.json().orElse(null));
            if (body != null) {
                hints.add(body);
            }
        }
        return longestHint(hints);
    }

    /**
     * The longest hint; but when it is whole seconds and another hint lies less than a second below
     * it, that finer hint (the whole seconds are its rounding up for {@code 1*DIGIT}).
     */
    static @Nullable Duration longestHint(List<Duration> hints) {
        Duration longest = null;
        for (Duration h : hints) {
            if (longest == null || h.compareTo(longest) > 0) {
                longest = h;
            }
        }
        if (longest == null || longest.getNano() != 0 || longest.isZero()) {
            return longest;
        }
        Duration floor = longest.minusSeconds(1);
        Duration finer = null;
        for (Duration h : hints) {
            if (h.compareTo(floor) > 0 && h.compareTo(longest) < 0 && (finer == null || h.compareTo(finer) > 0)) {
                finer = h;
            }
        }
        return finer != null ? finer : longest;
    }

    /**
     * Merges policies that share a name and partition key ({@code pk} attribute) into the first of
     * them: the lowest remaining, the highest used, the longest reset (with its instant and form),
     * the first known quota, window and unit, a quota kind when either says so. Unnamed policies
     * are kept as they are.
     */
    static List<PolicySnapshot> mergeDuplicates(List<PolicySnapshot> policies) {
        if (policies.size() < 2) {
            return policies;
        }
        List<PolicySnapshot> out = new ArrayList<>(policies.size());
        boolean merged = false;
        for (PolicySnapshot p : policies) {
            int same = -1;
            if (p.name() != null) {
                for (int i = 0; i < out.size(); i++) {
                    PolicySnapshot q = out.get(i);
                    if (p.name().equals(q.name()) && Objects.equals(p.attributes().get("pk"), q.attributes().get("pk"))) {
                        same = i;
                        break;
                    }
                }
            }
            if (same < 0) {
                out.add(p);
            } else {
                out.set(same, merge(out.get(same), p));
                merged = true;
            }
        }
        return merged ? List.copyOf(out) : policies;
    }

    private static PolicySnapshot merge(PolicySnapshot a, PolicySnapshot b) {
        boolean bResetsLater = b.resetIn() != null && (a.resetIn() == null || b.resetIn().compareTo(a.resetIn()) > 0
                || (b.resetIn().equals(a.resetIn()) && b.absoluteReset() && !a.absoluteReset()));
        PolicySnapshot reset = bResetsLater ? b : a;
        Map<String, String> attributes = new LinkedHashMap<>(b.attributes());
        attributes.putAll(a.attributes());
        PolicyKind kind = a.kind() == PolicyKind.QUOTA || b.kind() == PolicyKind.QUOTA ? PolicyKind.QUOTA
                : a.kind() != PolicyKind.UNKNOWN ? a.kind() : b.kind();
        return new PolicySnapshot(a.name(),
                a.quota() != null ? a.quota() : b.quota(),
                a.windowSeconds() != null ? a.windowSeconds() : b.windowSeconds(),
                lowest(a.remaining(), b.remaining()),
                reset.resetIn(),
                a.quotaUnit() != null ? a.quotaUnit() : b.quotaUnit(),
                kind,
                a.used() == null ? b.used() : b.used() == null ? a.used() : Long.valueOf(Math.max(a.used(), b.used())),
                reset.resetAt() != null ? reset.resetAt() : (a.resetAt() != null ? a.resetAt() : b.resetAt()),
                attributes,
                reset.absoluteReset());
    }

    private static @Nullable Long lowest(@Nullable Long a, @Nullable Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.min(a, b));
    }

    private static List<String> violatedPolicies(@Nullable ProblemDetails problem, @Nullable DialectReading reading) {
        List<String> names = new ArrayList<>(2);
        if (problem != null) {
            if (problem.limit() != null) {
                names.add(problem.limit());
            }
            for (String v : problem.violatedPolicies()) {
                if (!names.contains(v)) {
                    names.add(v);
                }
            }
        }
        if (reading != null && reading.violatedPolicy() != null && !names.contains(reading.violatedPolicy())) {
            names.add(reading.violatedPolicy());
        }
        return names;
    }

    /** For a limit without a named policy: the exhausted policy that explains it, if one does. */
    private static @Nullable String exhaustedPolicyName(List<PolicySnapshot> policies, Outcome outcome) {
        return policies.stream()
                .filter(PolicySnapshot::isExhausted)
                .filter(p -> p.name() != null)
                .filter(p -> outcome != Outcome.QUOTA_EXHAUSTED || p.kind() == PolicyKind.QUOTA)
                .max(Comparator.comparing(PolicySnapshot::waitIfExhausted))
                .map(PolicySnapshot::name)
                .orElse(null);
    }

    private static @Nullable Instant quotaResetAt(DialectInput in, Outcome outcome, List<PolicySnapshot> policies,
            @Nullable String violatedPolicy, @Nullable Duration retryAfter) {
        PolicySnapshot quota = null;
        for (PolicySnapshot p : policies) {
            if (violatedPolicy != null && violatedPolicy.equals(p.name()) && outcome == Outcome.QUOTA_EXHAUSTED) {
                quota = p;
                break;
            }
            if (p.isExhausted() && p.kind() == PolicyKind.QUOTA
                    && (quota == null || p.waitIfExhausted().compareTo(quota.waitIfExhausted()) > 0)) {
                quota = p;
            }
        }
        if (quota != null && quota.resetAt() != null) {
            return quota.resetAt();
        }
        if (outcome == Outcome.QUOTA_EXHAUSTED && retryAfter != null) {
            return ResetUnit.plus(in.responseTime(), retryAfter);
        }
        return null;
    }

    /** Collects dialects in precedence order; not thread-safe. */
    public static final class Builder {
        private final List<Dialect> dialects = new ArrayList<>();
        private ErrorCodeTable errorCodes = ErrorCodeTable.standard();

        private Builder() {
        }

        /**
         * The vendor error codes and phrases that mark a 4xx body as a rate limit or a spent quota
         * (default {@link ErrorCodeTable#standard()}); extend the standard one with
         * {@code ErrorCodeTable.standard().toBuilder()}.
         */
        public Builder errorCodes(ErrorCodeTable table) {
            this.errorCodes = Objects.requireNonNull(table, "table");
            return this;
        }

        /** Appends {@code dialect}: it is asked after every dialect registered before it. */
        public Builder register(Dialect dialect) {
            dialects.add(Objects.requireNonNull(dialect, "dialect"));
            return this;
        }

        /** Puts {@code dialect} first: it is asked before every dialect registered so far. */
        public Builder registerFirst(Dialect dialect) {
            dialects.add(0, Objects.requireNonNull(dialect, "dialect"));
            return this;
        }

        /**
         * Inserts {@code dialect} just before the dialect with id {@code id}.
         *
         * @throws IllegalArgumentException if no registered dialect has that id
         */
        public Builder registerBefore(String id, Dialect dialect) {
            Objects.requireNonNull(dialect, "dialect");
            for (int i = 0; i < dialects.size(); i++) {
                if (dialects.get(i).id().equals(id)) {
                    dialects.add(i, dialect);
                    return this;
                }
            }
            throw new IllegalArgumentException("no dialect with id '" + id + "' is registered");
        }

        /** Appends every standard dialect ({@link DialectRegistry#standardDialects()}). */
        public Builder registerStandard() {
            dialects.addAll(standardDialects());
            return this;
        }

        /** Removes every dialect with id {@code id}. */
        public Builder remove(String id) {
            dialects.removeIf(d -> d.id().equals(id));
            return this;
        }

        public DialectRegistry build() {
            return new DialectRegistry(dialects, errorCodes);
        }
    }
}
