package dev.sluice.limiter.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration was refused. Carries <em>every</em> problem found, not only the first, each naming
 * the file, line and field; the message lists them one per line.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    /** @throws IllegalArgumentException if {@code problems} is empty */
    public ConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** The problems, in document order per file. */
    public List<ConfigProblem> problems() {
        return problems;
    }
}
