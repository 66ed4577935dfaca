package dev.sluice.wire.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.wire.snapshot.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Data, not code paths: which vendor error codes and phrases in a 4xx body state a rate limit
 * ({@link Outcome#RATE_LIMITED}) or a spent quota ({@link Outcome#QUOTA_EXHAUSTED}) when no
 * rate-limit field says so (SPEC §4.2). Each {@link Row} cites the vendor's public page.
 *
 * <p>A code row names a JSON member ({@code code}, {@code reason}, {@code errorCode},
 * {@code type}, ...) and the value that means a limit. Members are looked up in every object of
 * the body, in objects <b>and</b> arrays ({@code error}, {@code errors[]}, a top-level array as
 * Salesforce sends), up to {@value #MAX_DEPTH} levels and {@value #MAX_OBJECTS} objects deep, so
 * a hostile body costs bounded work. Names compare without case, {@code _} or {@code -}; a row may
 * also name the member that holds the object ({@code error.code}: Meta's code sits under
 * {@code error}; {@code errors.reason}: an item of an {@code errors} array; {@code $.errorCode}: the
 * body itself or an item of a top-level array). Values compare as strings without case, or as
 * integers, or within an integer range ({@code 80001-80014}). A phrase row matches its words
 * anywhere in the body, case ignored.
 *
 * <p>Codes outrank phrases; of several matches of one sort, {@code quota_exhausted} wins (retrying
 * before the quota's reset fails again, so it is the safer reading).
 *
 * <p>{@link #standard()} is the table Sluice ships ({@code error-codes.tsv} beside this class).
 * Users extend or replace it the way they add a {@link Dialect}:
 * {@code DialectRegistry.standard().toBuilder().errorCodes(ErrorCodeTable.standard().toBuilder()
 * .code("acme", "error.code", "SLOW_DOWN", Outcome.RATE_LIMITED, "https://acme.example/errors")
 * .build()).build()}, or load their own rows with {@link #parse(String)}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ErrorCodeTable {

    /** How deep {@link #lookup} descends into a JSON body. */
    public static final int MAX_DEPTH = 5;
    /** How many JSON objects {@link #lookup} inspects at most. */
    public static final int MAX_OBJECTS = 64;
    private static final int MAX_TEXT_CHARS = 8_192;

    private static final ErrorCodeTable STANDARD = loadStandard();
    private static final ErrorCodeTable EMPTY = new ErrorCodeTable(List.of());

    /**
     * One row.
     *
     * @param vendor who sends it ({@code meta}, {@code google}, ...); reported as the match's
     *     {@code vendor:value}
     * @param member {@code text} for a phrase, else the member name, optionally
     *     {@code parent.name} (see the class comment)
     * @param value the code or phrase
     * @param kind {@link Outcome#RATE_LIMITED} or {@link Outcome#QUOTA_EXHAUSTED}
     * @param source the public page that documents it
     */
    public record Row(String vendor, String member, String value, Outcome kind, String source) {
        public Row {
            Objects.requireNonNull(vendor, "vendor");
            Objects.requireNonNull(member, "member");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(source, "source");
            if (kind != Outcome.RATE_LIMITED && kind != Outcome.QUOTA_EXHAUSTED) {
                throw new IllegalArgumentException("kind must be rate_limited or quota_exhausted: " + kind);
            }
            if (value.isBlank() || member.isBlank()) {
                throw new IllegalArgumentException("member and value must not be blank");
            }
        }

        /** True for a phrase row. */
        public boolean isPhrase() {
            return member.equalsIgnoreCase("text");
        }
    }

    /** A row that matched, and the code or phrase as the body had it. */
    public record Match(Row row, String found) {
        /** {@code vendor:value}, e.g. {@code x:185}, kept as the snapshot's {@code error_code}. */
        public String code() {
            return row.vendor() + ":" + row.value();
        }

        public Outcome kind() {
            return row.kind();
        }
    }

    private final List<Row> rows;
    // compiled forms, index-aligned with rows
    private final String[] parents;
    private final String[] names;
    private final long[] low;
    private final long[] high;
    private final String[] phrases;

    private ErrorCodeTable(List<Row> rows) {
        this.rows = List.copyOf(rows);
        int n = this.rows.size();
        parents = new String[n];
        names = new String[n];
        low = new long[n];
        high = new long[n];
        phrases = new String[n];
        for (int i = 0; i < n; i++) {
            Row r = this.rows.get(i);
            if (r.isPhrase()) {
                phrases[i] = r.value().toLowerCase(Locale.ROOT);
                continue;
            }
            String m = r.member();
            int dot = m.lastIndexOf('.');
            parents[i] = dot < 0 ? null : normalise(m.substring(0, dot));
            names[i] = normalise(m.substring(dot + 1));
            low[i] = Long.MIN_VALUE;
            high[i] = Long.MIN_VALUE;
            String v = r.value().strip();
            int dash = v.indexOf('-', 1);
            if (dash > 0 && isInteger(v.substring(0, dash)) && isInteger(v.substring(dash + 1))) {
                low[i] = Long.parseLong(v.substring(0, dash));
                high[i] = Long.parseLong(v.substring(dash + 1));
            } else if (isInteger(v)) {
                low[i] = Long.parseLong(v);
                high[i] = low[i];
            }
        }
    }

    /** The table Sluice ships: {@code error-codes.tsv} in this package. */
    public static ErrorCodeTable standard() {
        return STANDARD;
    }

    /** A table without rows (recognises nothing). */
    public static ErrorCodeTable empty() {
        return EMPTY;
    }

    /** An empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this table's rows. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.rows.addAll(rows);
        return b;
    }

    /** The rows, in order. */
    public List<Row> rows() {
        return rows;
    }

    /**
     * Reads rows in the format of {@code error-codes.tsv}: one per line, five tab-separated
     * columns {@code vendor member value kind source}; blank lines and {@code #} comments skipped.
     *
     * @throws IllegalArgumentException naming the line, for a line that is not such a row
     */
    public static ErrorCodeTable parse(String tsv) {
        Objects.requireNonNull(tsv, "tsv");
        Builder b = builder();
        String[] lines = tsv.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            String[] c = line.split("\t", -1);
            if (c.length != 5) {
                throw new IllegalArgumentException("line " + (i + 1) + ": expected 5 tab-separated columns"
                        + " (vendor, member, value, kind, source), got " + c.length);
            }
            Outcome kind = switch (c[3].strip()) {
                case "rate_limited" -> Outcome.RATE_LIMITED;
                case "quota_exhausted" -> Outcome.QUOTA_EXHAUSTED;
                default -> throw new IllegalArgumentException("line " + (i + 1)
                        + ": kind must be rate_limited or quota_exhausted, got '" + c[3].strip() + "'");
            };
            try {
                b.rows.add(new Row(c[0].strip(), c[1].strip(), c[2].strip(), kind, c[4].strip()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return b.build();
    }

    /**
     * The row a body matches: code rows looked up in {@code json} (when not {@code null}), then
     * phrase rows in {@code body}.
     *
     * @param json the body parsed as JSON, or {@code null}
     * @param body the body text, or {@code null}
     */
    public Optional<Match> lookup(@Nullable JsonNode json, @Nullable String body) {
        Match code = json == null ? null : codes(json);
        if (code != null) {
            return Optional.of(code);
        }
        return Optional.ofNullable(phrase(body));
    }

    private Match codes(JsonNode json) {
        Match[] best = new Match[1];
        int[] budget = {MAX_OBJECTS};
        visit(json, "$", 0, best, budget);
        return best[0];
    }

    private void visit(JsonNode node, String parent, int depth, Match[] best, int[] budget) {
        if (depth > MAX_DEPTH || budget[0] <= 0) {
            return;
        }
        if (node.isArray()) {
            int n = Math.min(node.size(), MAX_OBJECTS);
            for (int i = 0; i < n && budget[0] > 0; i++) {
                visit(node.get(i), parent, depth + 1, best, budget);
            }
            return;
        }
        if (!node.isObject()) {
            return;
        }
        budget[0]--;
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            JsonNode v = e.getValue();
            if (v.isContainerNode()) {
                visit(v, normalise(e.getKey()), depth + 1, best, budget);
            } else if (v.isTextual() || v.isIntegralNumber()) {
                String name = normalise(e.getKey());
                for (int i = 0; i < rows.size(); i++) {
                    if (names[i] != null && names[i].equals(name)
                            && (parents[i] == null || parents[i].equals(parent)) && matches(i, v)) {
                        best[0] = better(best[0], new Match(rows.get(i), v.asText()));
                        break;
                    }
                }
            }
        }
    }

    private boolean matches(int i, JsonNode v) {
        if (low[i] != Long.MIN_VALUE) {
            long x;
            if (v.isIntegralNumber() && v.canConvertToLong()) {
                x = v.longValue();
            } else if (v.isTextual() && isInteger(v.textValue().strip())) {
                x = Long.parseLong(v.textValue().strip());
            } else {
                return false;
            }
            return x >= low[i] && x <= high[i];
        }
        return v.isTextual() && v.textValue().strip().equalsIgnoreCase(rows.get(i).value());
    }

    private @Nullable Match phrase(@Nullable String body) {
        if (body == null || body.isEmpty()) {
            return null;
        }
        String t = (body.length() > MAX_TEXT_CHARS ? body.substring(0, MAX_TEXT_CHARS) : body).toLowerCase(Locale.ROOT);
        @Nullable Match best = null;
        for (int i = 0; i < rows.size(); i++) {
            if (phrases[i] != null && t.contains(phrases[i])) {
                best = better(best, new Match(rows.get(i), rows.get(i).value()));
            }
        }
        return best;
    }

    private static Match better(@Nullable Match a, Match b) {
        if (a == null) {
            return b;
        }
        return a.kind() != Outcome.QUOTA_EXHAUSTED && b.kind() == Outcome.QUOTA_EXHAUSTED ? b : a;
    }

    private static String normalise(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c != '_' && c != '-') {
                b.append(Character.toLowerCase(c));
            }
        }
        return b.toString();
    }

    private static boolean isInteger(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static ErrorCodeTable loadStandard() {
        try (InputStream in = ErrorCodeTable.class.getResourceAsStream("error-codes.tsv")) {
            if (in == null) {
                throw new IllegalStateException("error-codes.tsv is missing from the sluice-wire jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Collects rows in order; not thread-safe. */
    public static final class Builder {
        private final List<Row> rows = new ArrayList<>();

        private Builder() {
        }

        /** Adds a code row: {@code member} (optionally {@code parent.member}) equal to {@code value}. */
        public Builder code(String vendor, String member, String value, Outcome kind, String source) {
            rows.add(new Row(vendor, member, value, kind, source));
            return this;
        }

        /** Adds a phrase row: {@code phrase} anywhere in the body, case ignored. */
        public Builder phrase(String vendor, String phrase, Outcome kind, String source) {
            rows.add(new Row(vendor, "text", phrase, kind, source));
            return this;
        }

        /** Adds every row of {@code table}. */
        public Builder addAll(ErrorCodeTable table) {
            rows.addAll(table.rows);
            return this;
        }

        /** Removes the rows of {@code vendor}. */
        public Builder removeVendor(String vendor) {
            rows.removeIf(r -> r.vendor().equals(vendor));
            return this;
        }

        public ErrorCodeTable build() {
            return new ErrorCodeTable(rows);
        }
    }
}
