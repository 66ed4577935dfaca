package dev.sluice.wire.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable view of HTTP header fields: names compared case-insensitively (RFC 9110 §5.1),
 * several field lines of one name kept in order (RFC 9110 §5.2).
 *
 * <p>Transports adapt their own header types to this one (JDK {@code HttpHeaders}, Netty
 * {@code HttpHeaders}, a raw response file) so that everything in {@code sluice-wire} reads one
 * shape. Thread-safe (immutable).
 */
public final class HttpFields {

    private static final HttpFields EMPTY = new HttpFields(Map.of());

    /** lower-cased name to field lines, in arrival order */
    private final Map<String, List<String>> lines;

    private HttpFields(Map<String, List<String>> lines) {
        this.lines = lines;
    }

    /** No fields at all. */
    public static HttpFields empty() {
        return EMPTY;
    }

    /**
     * Fields from alternating names and values: {@code of("Retry-After", "5", "Date", "...")}.
     *
     * @throws IllegalArgumentException if the number of arguments is odd
     */
    public static HttpFields of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must alternate; got an odd count");
        }
        Builder b = builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            b.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return b.build();
    }

    /** Fields from a map of name to field lines (any case), e.g. JDK {@code HttpHeaders.map()}. */
    public static HttpFields ofMultimap(Map<String, ? extends List<String>> map) {
        Builder b = builder();
        map.forEach((name, values) -> values.forEach(v -> b.add(name, v)));
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every field line of {@code name}, in order; empty when absent. */
    public List<String> all(String name) {
        return lines.getOrDefault(key(name), List.of());
    }

    /** The first field line of {@code name}. */
    public Optional<String> first(String name) {
        List<String> v = lines.get(key(name));
        return v == null ? Optional.empty() : Optional.of(v.get(0));
    }

    /**
     * The field lines of {@code name} combined into one value with {@code ", "}, as a recipient may
     * do for list-based fields (RFC 9110 §5.3). Structured-field Lists and Dictionaries are parsed
     * from this combined value (RFC 9651 §4.2).
     */
    public Optional<String> combined(String name) {
        List<String> v = lines.get(key(name));
        if (v == null) {
            return Optional.empty();
        }
        return Optional.of(v.size() == 1 ? v.get(0) : String.join(", ", v));
    }

    public boolean contains(String name) {
        return lines.containsKey(key(name));
    }

    /** The lower-cased names present, in first-arrival order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(lines.keySet());
    }

    public boolean isEmpty() {
        return lines.isEmpty();
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpFields other && lines.equals(other.lines);
    }

    @Override
    public int hashCode() {
        return lines.hashCode();
    }

    @Override
    public String toString() {
        return lines.toString();
    }

    /** Collects field lines; not thread-safe. */
    public static final class Builder {
        private final Map<String, List<String>> lines = new LinkedHashMap<>();

        private Builder() {
        }

        /** Appends one field line. Leading and trailing whitespace of the value is removed (RFC 9110 §5.5). */
        public Builder add(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            lines.computeIfAbsent(key(name), k -> new ArrayList<>(1)).add(value.strip());
            return this;
        }

        public HttpFields build() {
            if (lines.isEmpty()) {
                return EMPTY;
            }
            Map<String, List<String>> copy = new LinkedHashMap<>(lines.size() * 2);
            lines.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            return new HttpFields(Collections.unmodifiableMap(copy));
        }
    }
}
