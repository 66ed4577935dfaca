package dev.sluice.limiter.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects problems while a configuration is read, so that one run reports them all. Readers of
 * each section (the limiter's {@code plans} and {@code keys}, the edge's {@code routes}, ...) add to
 * one instance; the caller then calls {@link #throwIfAny()}. Not thread-safe.
 */
public final class ConfigProblems {

    private final List<ConfigProblem> problems = new ArrayList<>();

    /** Records {@code message} against {@code node}'s file, line and path. */
    public void add(ConfigNode node, String message) {
        problems.add(new ConfigProblem(node.source(), node.line(), node.path(), message));
    }

    /** Records a problem located explicitly. */
    public void add(ConfigProblem problem) {
        problems.add(problem);
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    /** The problems so far. */
    public List<ConfigProblem> list() {
        return List.copyOf(problems);
    }

    /** @throws ConfigException carrying every problem, if there is any */
    public void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }
}
