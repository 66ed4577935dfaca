package dev.sluice.cli.replay;

import dev.sluice.cli.CliError;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One request of a replay trace: {@code t_ms,key[,cost]}.
 *
 * <p>Line 1 may be the header {@code t_ms,key,cost} (any case); a UTF-8 byte-order mark before it
 * is ignored. Anything else that is not a request is an error, never skipped silently.
 *
 * @param millis milliseconds after the replay's start, &ge; 0
 * @param key the API key, non-empty
 * @param cost units the request costs, &ge; 1 (default 1)
 */
record TraceLine(long millis, String key, long cost) {

    /** The largest t_ms or cost accepted: 100 years of milliseconds, so start + t_ms never overflows. */
    static final long MAX_VALUE = 3_155_760_000_000L;

    /**
     * Parses line {@code lineNo} of {@code file}.
     *
     * @return empty for a blank line, a {@code #} comment, or a header on line 1
     * @throws CliError naming the file, line and field when the line is malformed
     */
    static Optional<TraceLine> parse(String line, int lineNo, Path file) {
        String text = line.strip();
        if (lineNo == 1 && text.startsWith("\uFEFF")) {
            text = text.substring(1).strip(); // a byte-order mark left by some editors
        }
        if (text.isEmpty() || text.startsWith("#")) {
            return Optional.empty();
        }
        String[] fields = text.split(",", -1);
        if (lineNo == 1 && fields[0].strip().equalsIgnoreCase("t_ms")) {
            return Optional.empty(); // the header line: t_ms,key[,cost]
        }
        String where = file + ":" + lineNo + ": ";
        if (fields.length < 2 || fields.length > 3) {
            throw new CliError(where + "expected t_ms,key[,cost] but found " + fields.length + " field(s): " + text);
        }
        long millis = number(fields[0], where + "t_ms");
        String key = fields[1].strip();
        if (key.isEmpty()) {
            throw new CliError(where + "key: must not be empty");
        }
        long cost = fields.length == 3 ? number(fields[2], where + "cost") : 1;
        if (cost < 1) {
            throw new CliError(where + "cost: must be >= 1, was " + cost);
        }
        return Optional.of(new TraceLine(millis, key, cost));
    }

    private static long number(String field, String what) {
        String v = field.strip();
        if (v.isEmpty() || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new CliError(what + ": must be a non-negative whole number, was \"" + v + "\"");
        }
        if (v.length() > 13 || Long.parseLong(v) > MAX_VALUE) {
            throw new CliError(what + ": must be at most " + MAX_VALUE + " (about 100 years of milliseconds), was " + v);
        }
        return Long.parseLong(v);
    }
}
