package dev.sluice.wire.problem;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
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
 * An RFC 9457 problem details object ({@code application/problem+json}): the body of every
 * rejection the edge writes and a source of limit information the SDK reads (SPEC §3.4, §4.2).
 *
 * <p>Standard members are typed components; every other member is kept, in order, in
 * {@link #extensions()} with JSON-shaped values ({@code String}, {@code Boolean}, {@code Long},
 * {@code BigInteger}, {@code Double}, {@code BigDecimal}, {@code List}, {@code Map}, or
 * {@code null}). The extensions Sluice uses have typed accessors: {@link #limit()} (the policy that
 * denied), {@link #retryAfterSeconds()} ({@code retry_after_s}, equal to {@code Retry-After}) and
 * {@link #violatedPolicies()} (draft-ietf-httpapi-ratelimit-headers {@code violated-policies}).
 *
 * <p>Reading follows RFC 9457 §3.1: a standard member whose value has the wrong JSON type is
 * ignored, unknown members are preserved, and input that is not a JSON object yields
 * {@link Optional#empty()} rather than an exception. Writing always produces valid JSON, whatever
 * the strings contain (quotes, control characters, lone surrogates become U+FFFD).
 *
 * <p>Immutable and thread-safe.
 *
 * @param type the problem type URI reference; {@code null} when absent (which RFC 9457 §3.1.1
 *     reads as {@code about:blank}, see {@link #effectiveType()})
 * @param title a short human-readable summary, or {@code null}
 * @param status the HTTP status code the origin generated, or {@code null}
 * @param detail a human-readable explanation of this occurrence, or {@code null}
 * @param instance a URI reference for this occurrence, or {@code null}
 * @param extensions all other members in document order; never {@code null}; must not use a
 *     standard member's name
 */
public record ProblemDetails(
        @Nullable String type,
        @Nullable String title,
        @Nullable Integer status,
        @Nullable String detail,
        @Nullable String instance,
        Map<String, Object> extensions) {

    /** The media type, RFC 9457 §6.1. */
    public static final String MEDIA_TYPE = "application/problem+json";
    /** Extension: the name of the policy that denied (SPEC §3.4). */
    public static final String LIMIT = "limit";
    /** Extension: whole seconds to wait, equal to the {@code Retry-After} header (SPEC §3.4). */
    public static final String RETRY_AFTER_S = "retry_after_s";
    /** Extension of draft-ietf-httpapi-ratelimit-headers: the names of the policies violated. */
    public static final String VIOLATED_POLICIES = "violated-policies";
    /** The default type, RFC 9457 §4.2.1. */
    public static final String ABOUT_BLANK = "about:blank";

    private static final Set<String> STANDARD = Set.of("type", "title", "status", "detail", "instance");
    private static final JsonFactory JSON = new JsonFactory();
    /**
     * Numbers of any length parse (Jackson's default refuses more than 1,000 digits): a huge
     * {@code retry_after_s} saturates rather than making the whole problem vanish (R03).
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(Integer.MAX_VALUE).build())
            .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
            .build()).build();

    public ProblemDetails {
        if (extensions == null || extensions.isEmpty()) {
            extensions = Map.of();
        } else {
            for (String name : extensions.keySet()) {
                Objects.requireNonNull(name, "extension name");
                if (STANDARD.contains(name)) {
                    throw new IllegalArgumentException("'" + name + "' is a standard member, not an extension");
                }
            }
            // keep document order; Map.copyOf would not, and would reject null values
            extensions = Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@link #type()}, or {@code about:blank} when absent. */
    public String effectiveType() {
        return type == null ? ABOUT_BLANK : type;
    }

    /**
     * The last segment of the type URI, after its last {@code #} or {@code /}: {@code rate_limited}
     * for {@code https://api.example.com/errors/rate_limited}, {@code quota-exceeded} for
     * {@code https://iana.org/assignments/http-problem-types#quota-exceeded}; lower-cased;
     * {@code null} when the type is absent or blank.
     */
    public @Nullable String typeCode() {
        if (type == null) {
            return null;
        }
        String t = type.strip();
        while (t.endsWith("/")) {
            t = t.substring(0, t.length() - 1);
        }
        int cut = Math.max(t.lastIndexOf('#'), t.lastIndexOf('/'));
        String code = t.substring(cut + 1).toLowerCase(Locale.ROOT);
        return code.isEmpty() ? null : code;
    }

    /** The {@code limit} extension when it is a string, else {@code null}. */
    public @Nullable String limit() {
        return extensions.get(LIMIT) instanceof String s ? s : null;
    }

    /**
     * The {@code retry_after_s} extension when it is a non-negative number, rounded up to whole
     * seconds and saturating at {@link Long#MAX_VALUE}; else {@code null}.
     */
    public @Nullable Long retryAfterSeconds() {
        Object v = extensions.get(RETRY_AFTER_S);
        if (v instanceof Long l) {
            return l >= 0 ? l : null;
        }
        if (v instanceof BigInteger b) {
            return b.signum() >= 0 ? Long.MAX_VALUE : null;
        }
        if (v instanceof Number n) {
            double d = n.doubleValue();
            if (!(d >= 0)) {
                return null; // negative or NaN
            }
            // a literal too large for a double (1e400) reads as infinity: it saturates like any huge value
            return d >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(d);
        }
        return null;
    }

    /** The string members of the {@code violated-policies} array, in order; empty when absent. */
    public List<String> violatedPolicies() {
        if (!(extensions.get(VIOLATED_POLICIES) instanceof List<?> list)) {
            return List.of();
        }
        List<String> names = new ArrayList<>(list.size());
        for (Object o : list) {
            if (o instanceof String s) {
                names.add(s);
            }
        }
        return List.copyOf(names);
    }

    /**
     * True when {@code contentType} is {@code application/problem+json}, ignoring case and
     * parameters ({@code ; charset=utf-8}).
     */
    public static boolean isProblemMediaType(@Nullable String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        String essence = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip();
        return essence.equalsIgnoreCase(MEDIA_TYPE);
    }

    /**
     * Reads a problem details object.
     *
     * @param json the body, may be {@code null}
     * @return the problem, or empty when {@code json} is {@code null}, not JSON, or not a JSON
     *     object; never throws
     */
    public static Optional<ProblemDetails> parse(String json) {
        if (json == null || json.isBlank()) {
            return Optional.empty();
        }
        try {
            return fromJson(MAPPER.readTree(json));
        } catch (JsonProcessingException | RuntimeException e) {
            // malformed published examples must not break the reader (header-vectors README)
            return Optional.empty();
        }
    }

    /**
     * Reads a problem details object from an already parsed JSON tree.
     *
     * @return the problem, or empty when {@code node} is {@code null} or not an object
     */
    public static Optional<ProblemDetails> fromJson(@Nullable JsonNode node) {
        if (node == null || !node.isObject()) {
            return Optional.empty();
        }
        Builder b = builder();
        for (Map.Entry<String, JsonNode> f : node.properties()) {
            JsonNode v = f.getValue();
            switch (f.getKey()) {
                case "type" -> b.type(v.isTextual() ? v.textValue() : null);
                case "title" -> b.title(v.isTextual() ? v.textValue() : null);
                case "detail" -> b.detail(v.isTextual() ? v.textValue() : null);
                case "instance" -> b.instance(v.isTextual() ? v.textValue() : null);
                case "status" -> b.status(v.canConvertToInt() && v.isIntegralNumber()
                        && v.intValue() >= 100 && v.intValue() <= 599 ? v.intValue() : null);
                default -> b.extension(f.getKey(), toJava(v));
            }
        }
        return Optional.of(b.build());
    }

    /** This problem as compact JSON: standard members first, then extensions in order. */
    public String toJson() {
        StringWriter out = new StringWriter(128 + 64 * extensions.size());
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            writeString(g, "type", type);
            writeString(g, "title", title);
            if (status != null) {
                g.writeNumberField("status", status);
            }
            writeString(g, "detail", detail);
            writeString(g, "instance", instance);
            for (Map.Entry<String, Object> e : extensions.entrySet()) {
                g.writeFieldName(clean(e.getKey()));
                writeValue(g, e.getValue());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /** {@link #toJson()} as UTF-8 bytes. */
    public byte[] toJsonBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }

    private static void writeString(JsonGenerator g, String name, @Nullable String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, clean(value));
        }
    }

    private static void writeValue(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case String s -> g.writeString(clean(s));
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case BigInteger b -> g.writeNumber(b);
            case BigDecimal b -> g.writeNumber(b);
            case Double d when Double.isFinite(d) -> g.writeNumber(d);
            case Float f when Float.isFinite(f) -> g.writeNumber(f);
            case Number n -> g.writeNull(); // NaN and infinities have no JSON form
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(clean(String.valueOf(e.getKey())));
                    writeValue(g, e.getValue());
                }
                g.writeEndObject();
            }
            case Iterable<?> it -> {
                g.writeStartArray();
                for (Object o : it) {
                    writeValue(g, o);
                }
                g.writeEndArray();
            }
            default -> g.writeString(clean(v.toString()));
        }
    }

    /** Replaces unpaired surrogates, which no UTF-8 encoder can write, with U+FFFD. */
    static String clean(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1));
                if (!paired) {
                    return replaceLoneSurrogates(s);
                }
                i++;
            }
        }
        return s;
    }

    private static String replaceLoneSurrogates(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append('\uFFFD');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static @Nullable Object toJava(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return null;
        }
        if (v.isTextual()) {
            return v.textValue();
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isIntegralNumber()) {
            return v.canConvertToLong() ? (Object) v.longValue() : v.bigIntegerValue();
        }
        if (v.isBigDecimal()) {
            return v.decimalValue();
        }
        if (v.isNumber()) {
            return v.doubleValue();
        }
        if (v.isArray()) {
            List<Object> list = new ArrayList<>(v.size());
            v.forEach(e -> list.add(toJava(e)));
            return Collections.unmodifiableList(list);
        }
        if (v.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            v.properties().forEach(e -> map.put(e.getKey(), toJava(e.getValue())));
            return Collections.unmodifiableMap(map);
        }
        return v.asText();
    }

    /** Builds a {@link ProblemDetails}; not thread-safe. */
    public static final class Builder {
        private @Nullable String type;
        private @Nullable String title;
        private @Nullable Integer status;
        private @Nullable String detail;
        private @Nullable String instance;
        private final Map<String, Object> extensions = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder type(@Nullable String type) {
            this.type = type;
            return this;
        }

        public Builder title(@Nullable String title) {
            this.title = title;
            return this;
        }

        public Builder status(@Nullable Integer status) {
            this.status = status;
            return this;
        }

        public Builder detail(@Nullable String detail) {
            this.detail = detail;
            return this;
        }

        public Builder instance(@Nullable String instance) {
            this.instance = instance;
            return this;
        }

        /** The {@code limit} extension: the policy that denied. */
        public Builder limit(String policyName) {
            return extension(LIMIT, policyName);
        }

        /** The {@code retry_after_s} extension: whole seconds, equal to {@code Retry-After}. */
        public Builder retryAfterSeconds(long seconds) {
            return extension(RETRY_AFTER_S, seconds);
        }

        /** The {@code violated-policies} extension. */
        public Builder violatedPolicies(List<String> policyNames) {
            return extension(VIOLATED_POLICIES, List.copyOf(policyNames));
        }

        /**
         * Any other member.
         *
         * @throws IllegalArgumentException if {@code name} is a standard member's name
         */
        public Builder extension(String name, @Nullable Object value) {
            Objects.requireNonNull(name, "name");
            if (STANDARD.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is a standard member; use its setter");
            }
            extensions.put(name, value);
            return this;
        }

        public ProblemDetails build() {
            return new ProblemDetails(type, title, status, detail, instance, extensions);
        }
    }
}
