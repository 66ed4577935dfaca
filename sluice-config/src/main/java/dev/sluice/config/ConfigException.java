package dev.sluice.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration was refused. Carries <em>every</em> problem found, not only the first, each naming
 * the file, line and field; the message lists them one per line, sorted by file and line. The one
 * configuration error of every Sluice module (edge, limiter, delivery, simulator).
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    /** @throws IllegalArgumentException if {@code problems} is empty */
    public ConfigException(List<ConfigProblem> problems) {
        super(sortedAndJoined(problems));
        this.problems = ConfigProblems.sorted(problems);
    }

    /** A refusal with one problem (a file that cannot be read, say). */
    public ConfigException(ConfigProblem problem) {
        this(List.of(problem));
    }

    private static String sortedAndJoined(List<ConfigProblem> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        return ConfigProblems.sorted(problems).stream().map(ConfigProblem::toString)
                .collect(Collectors.joining("\n"));
    }

    /** The problems, sorted by file and line (document order within a line). */
    public List<ConfigProblem> problems() {
        return problems;
    }
}
