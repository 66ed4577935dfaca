package dev.sluice.wire.dialect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.ListMembers;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One response as a {@link Dialect} sees it: the raw response, the instant relative values are
 * measured from, and the body parsed lazily (once) as JSON and as problem details.
 *
 * <h2>Field names and duplicates</h2>
 * The field accessors of this class ({@link #header}, {@link #has}, {@link #all},
 * {@link #members}, {@link #count}, {@link #names}) compare names case-insensitively and treat the
 * spellings {@code rate-limit} and {@code ratelimit} as one ({@code X-Rate-Limit-Remaining} is
 * {@code x-ratelimit-remaining}; Azure OpenAI sends {@code x-rate-limit-reset-tokens} beside
 * {@code x-ratelimit-remaining-tokens}). Lines of both spellings are one field, in arrival order.
 * {@link #headers()} gives the fields exactly as received.
 *
 * <p>A field that arrives twice, as two lines or as one comma-joined line, is one field (RFC 9110
 * §5.3). Readers that pick one value pick the cautious one (SPEC §2.4, "a hint is never
 * undercut"): {@link #count} gives the <b>lowest</b> count, and resets are read with
 * {@link ResetUnit#applyLongest}, the <b>longest</b> wait.
 *
 * <p>Not thread-safe: the registry creates one per {@code read} call.
 */
public final class DialectInput {

    /** Bodies longer than this (in chars) are not parsed as JSON: limit bodies are small. */
    public static final int MAX_JSON_BODY_CHARS = 256 * 1024;

    /**
     * Numbers of any length are accepted (Jackson's default refuses more than 1,000 digits, and a
     * refused body would make a huge {@code retry_after} vanish instead of saturating, R03); the
     * fast big-number parser keeps a 250,000-digit literal to a few hundred milliseconds.
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(MAX_JSON_BODY_CHARS).build())
            .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
            .build()).build();

    private final ResponseView response;
    private final Instant localNow;
    private final @Nullable Instant serverDate;
    /** canonical name ({@link #canonical(String)}) to field lines, in first-arrival order */
    private final Map<String, List<String>> fields;
    private @Nullable JsonNode json;
    private boolean jsonParsed;
    private @Nullable ProblemDetails problem;
    private boolean problemParsed;
    private final ErrorCodeTable errorCodes;
    private ErrorCodeTable.@Nullable Match errorCode;
    private boolean errorCodeLooked;

    /**
     * @param response the response
     * @param localNow the caller's wall clock at receipt, used only when the response has no valid
     *     {@code Date}
     */
    public DialectInput(ResponseView response, Instant localNow) {
        this(response, localNow, ErrorCodeTable.standard());
    }

    /**
     * @param response the response
     * @param localNow the caller's wall clock at receipt, used only when the response has no valid
     *     {@code Date}
     * @param errorCodes the vendor error codes and phrases {@link #errorCode()} looks up
     */
    public DialectInput(ResponseView response, Instant localNow, ErrorCodeTable errorCodes) {
        this.errorCodes = Objects.requireNonNull(errorCodes, "errorCodes");
        this.response = Objects.requireNonNull(response, "response");
        this.localNow = Objects.requireNonNull(localNow, "localNow");
        this.serverDate = HttpDate.parse(response.headers().first("Date").orElse(null), localNow);
        Map<String, List<String>> f = new LinkedHashMap<>();
        for (String name : response.headers().names()) {
            f.computeIfAbsent(canonical(name), k -> new ArrayList<>(1)).addAll(response.headers().all(name));
        }
        this.fields = Collections.unmodifiableMap(f);
    }

    /**
     * The name this class files a field under: lower case, with {@code rate-limit} spelled
     * {@code ratelimit}, and HelloSign's {@code x-ratelimit-limit-remaining} filed as
     * {@code x-ratelimit-remaining}.
     */
    static String canonical(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        n = n.contains("rate-limit") ? n.replace("rate-limit", "ratelimit") : n;
        // HelloSign's spelling of the remaining count: not a family named "remaining"
        return n.equals("x-ratelimit-limit-remaining") ? "x-ratelimit-remaining" : n;
    }

    public ResponseView response() {
        return response;
    }

    public int status() {
        return response.status();
    }

    public HttpFields headers() {
        return response.headers();
    }

    /** The body, or {@code null} when the caller did not read it. */
    public @Nullable String body() {
        return response.body();
    }

    /**
     * The response's own time, the "now" of every relative value (SPEC §2.4, R04): its
     * {@code Date} when present and valid, else the caller's clock.
     */
    public Instant responseTime() {
        return serverDate != null ? serverDate : localNow;
    }

    /** True when {@link #responseTime()} is the server's {@code Date} rather than the local clock. */
    public boolean serverDated() {
        return serverDate != null;
    }

    /** The first field line of {@code name} (either spelling), stripped, or {@code null}. */
    public @Nullable String header(String name) {
        List<String> lines = fields.get(canonical(name));
        return lines == null ? null : lines.get(0);
    }

    /** True when the field is present (either spelling). */
    public boolean has(String name) {
        return fields.containsKey(canonical(name));
    }

    /** Every field line of {@code name} (both spellings), in arrival order; empty when absent. */
    public List<String> all(String name) {
        return fields.getOrDefault(canonical(name), List.of());
    }

    /**
     * The list members of every field line of {@code name} ({@link ListMembers}): {@code 50} and
     * {@code 0} for two lines or for one line {@code 50, 0}.
     */
    public List<String> members(String name) {
        return ListMembers.of(all(name));
    }

    /** The canonical names present ({@link #canonical(String)}), in first-arrival order. */
    public Set<String> names() {
        return fields.keySet();
    }

    /**
     * The field as a non-negative count, or {@code null} when absent, negative (a "not reported"
     * sentinel such as Azure OpenAI's {@code -1}) or malformed. Digits saturate; a decimal
     * ({@code 599.0}, Reddit) is rounded down. A field sent twice (two lines, or {@code 50, 0})
     * gives its <b>lowest</b> valid member: a remaining allowance is never overstated (SPEC §2.4).
     */
    public @Nullable Long count(String name) {
        List<String> lines = all(name);
        if (lines.size() == 1 && lines.get(0).indexOf(',') < 0) {
            long v = WireNumbers.parseDecimalCount(lines.get(0));
            return v < 0 ? null : v;
        }
        Long lowest = null;
        for (String m : ListMembers.of(lines)) {
            long v = WireNumbers.parseDecimalCount(m);
            if (v >= 0 && (lowest == null || v < lowest)) {
                lowest = v;
            }
        }
        return lowest;
    }

    /**
     * A field that counts what is already spent ({@code x-ratelimit-used}): as {@link #count}, but
     * sent twice it gives its <b>highest</b> valid member, the cautious reading of a used count.
     */
    public @Nullable Long usedCount(String name) {
        Long highest = null;
        for (String m : members(name)) {
            long v = WireNumbers.parseDecimalCount(m);
            if (v >= 0 && (highest == null || v > highest)) {
                highest = v;
            }
        }
        return highest;
    }

    /** The lowest count among several equivalent fields ({@link #count(String)} of each). */
    public @Nullable Long lowestCount(String... names) {
        Long lowest = null;
        for (String n : names) {
            Long v = count(n);
            if (v != null && (lowest == null || v < lowest)) {
                lowest = v;
            }
        }
        return lowest;
    }

    /**
     * The {@code Age} field (RFC 9111 §5.1: delta-seconds since the origin produced the response),
     * or {@code null} when absent or malformed. Sent twice, the smallest value: it shortens a wait
     * the least.
     */
    public @Nullable Duration age() {
        Long seconds = null;
        for (String m : members("Age")) {
            long v = WireNumbers.parseCount(m);
            if (v >= 0 && (seconds == null || v < seconds)) {
                seconds = v;
            }
        }
        return seconds == null ? null : WireNumbers.clamp(Duration.ofSeconds(Math.min(seconds, Long.MAX_VALUE / 2)));
    }

    /**
     * The body as JSON (object or array), parsed once; empty when there is no body, it does not
     * start like JSON, it is longer than {@link #MAX_JSON_BODY_CHARS}, or it is malformed (published
     * examples often are). Never throws.
     */
    public Optional<JsonNode> json() {
        if (!jsonParsed) {
            jsonParsed = true;
            json = parseJson(body());
        }
        return Optional.ofNullable(json);
    }

    /**
     * The body as RFC 9457 problem details: when it is a JSON object and either the
     * {@code Content-Type} is {@code application/problem+json} or the object has a URI-like
     * {@code type} with a {@code title} or {@code status}. Never throws.
     */
    public Optional<ProblemDetails> problem() {
        if (!problemParsed) {
            problemParsed = true;
            JsonNode node = json().orElse(null);
            if (node != null && node.isObject()) {
                boolean declared = ProblemDetails.isProblemMediaType(header("Content-Type"));
                JsonNode type = node.get("type");
                boolean looksLikeProblem = type != null && type.isTextual()
                        && (type.textValue().contains(":") || type.textValue().contains("/"))
                        && (node.has("title") || node.has("status"));
                if (declared || looksLikeProblem) {
                    problem = ProblemDetails.fromJson(node).orElse(null);
                }
            }
        }
        return Optional.ofNullable(problem);
    }

    /**
     * The row of the registry's {@link ErrorCodeTable} that the body matches on a 4xx status
     * (a vendor code such as X's {@code 185} or YouTube's {@code quotaExceeded}, or a phrase),
     * looked up once; empty on any other status or when nothing matches. Never throws.
     */
    public Optional<ErrorCodeTable.Match> errorCode() {
        if (!errorCodeLooked) {
            errorCodeLooked = true;
            if (status() >= 400 && status() < 500 && body() != null) {
                errorCode = errorCodes.lookup(json().orElse(null), body()).orElse(null);
            }
        }
        return Optional.ofNullable(errorCode);
    }

    private static @Nullable JsonNode parseJson(@Nullable String body) {
        if (body == null || body.length() > MAX_JSON_BODY_CHARS) {
            return null;
        }
        int i = 0;
        int n = body.length();
        while (i < n && (Character.isWhitespace(body.charAt(i)) || body.charAt(i) == '\uFEFF')) {
            i++;
        }
        if (i == n || (body.charAt(i) != '{' && body.charAt(i) != '[')) {
            return null;
        }
        try {
            JsonNode node = MAPPER.readTree(body.substring(i));
            return node != null && (node.isObject() || node.isArray()) ? node : null;
        } catch (Exception e) {
            // JsonProcessingException for malformed JSON; anything else is equally "not JSON" here
            return null;
        }
    }
}
