package dev.sluice.config;

/**
 * One thing wrong with a configuration file, located by file, line and field.
 *
 * @param source the file as the user named it ({@code config.yaml}), or a label for other input
 * @param line 1-based line, or 0 when unknown
 * @param path the field's path ({@code plans.free.policies[0].q}); empty for the whole document
 * @param message what is wrong and, where useful, what was found ({@code must be > 0, was 0})
 */
public record ConfigProblem(String source, int line, String path, String message) {

    /** {@code config.yaml:7: plans.free.policies[0].q: must be > 0, was 0}. */
    @Override
    public String toString() {
        return source + ":" + line + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }
}
