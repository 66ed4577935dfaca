package dev.sluice.cli.replay;

import dev.sluice.cli.CliError;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One request of a replay trace: {@code t_ms,key[,cost]}.
 *
 * @param millis milliseconds after the replay's start, &ge; 0
 * @param key the API key, non-empty
 * @param cost units the request costs, &ge; 1 (default 1)
 */
record TraceLine(long millis, String key, long cost) {

    /**
     * Parses line {@code lineNo} of {@code file}.
     *
     * @return empty for a blank line, a {@code #} comment, or a header on line 1
     * @throws CliError naming the file, line and field when the line is malformed
     */
    static Optional<TraceLine> parse(String line, int lineNo, Path file) {
        String text = line.strip();
        if (text.isEmpty() || text.startsWith("#")) {
            return Optional.empty();
        }
        String[] fields = text.split(",", -1);
        if (lineNo == 1 && !fields[0].strip().isEmpty() && !Character.isDigit(fields[0].strip().charAt(0))) {
            return Optional.empty(); // header line such as t_ms,key,cost
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
        if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(Character::isDigit)) {
            throw new CliError(what + ": must be a non-negative whole number, was \"" + v + "\"");
        }
        return Long.parseLong(v);
    }
}
