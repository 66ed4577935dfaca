package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.problem.ProblemDetails;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.WireNumbers;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One response as a {@link Dialect} sees it: the raw response, the instant relative values are
 * measured from, and the body parsed lazily (once) as JSON and as problem details.
 *
 * <p>Not thread-safe: the registry creates one per {@code read} call.
 */
public final class DialectInput {

    /** Bodies longer than this (in chars) are not parsed as JSON: limit bodies are small. */
    public static final int MAX_JSON_BODY_CHARS = 256 * 1024;

    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private final ResponseView response;
    private final Instant localNow;
    private final Instant serverDate;
    private JsonNode json;
    private boolean jsonParsed;
    private ProblemDetails problem;
    private boolean problemParsed;

    /**
     * @param response the response
     * @param localNow the caller's wall clock at receipt, used only when the response has no valid
     *     {@code Date}
     */
    public DialectInput(ResponseView response, Instant localNow) {
        this.response = Objects.requireNonNull(response, "response");
        this.localNow = Objects.requireNonNull(localNow, "localNow");
        this.serverDate = HttpDate.parse(response.headers().first("Date").orElse(null), localNow);
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
    public String body() {
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

    /** The first field line of {@code name}, stripped, or {@code null}. */
    public String header(String name) {
        return response.headers().first(name).orElse(null);
    }

    /** True when the field is present. */
    public boolean has(String name) {
        return response.headers().contains(name);
    }

    /**
     * The field as a non-negative count ({@code 1*DIGIT}, saturating), or {@code null} when absent,
     * negative (a "not reported" sentinel such as Azure OpenAI's {@code -1}) or malformed.
     */
    public Long count(String name) {
        long v = WireNumbers.parseCount(header(name));
        return v < 0 ? null : v;
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

    private static JsonNode parseJson(String body) {
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
