package dev.sluice.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects problems (and warnings) while a configuration is read, so that one run reports them all.
 * Readers of each section (the limiter's {@code plans} and {@code keys}, the edge's {@code routes},
 * ...) add to one instance; the caller then calls {@link #throwIfAny()}. Both lists come out sorted by
 * file and line, whatever order the sections were read in. Not thread-safe.
 */
public final class ConfigProblems {

    private final List<ConfigProblem> problems = new ArrayList<>();
    private final List<ConfigProblem> warnings = new ArrayList<>();

    /** Records {@code message} against {@code node}'s file, line and path. */
    public void add(ConfigNode node, String message) {
        problems.add(new ConfigProblem(node.source(), node.line(), node.path(), message));
    }

    /** Records a problem located explicitly. */
    public void add(ConfigProblem problem) {
        problems.add(problem);
    }

    /**
     * Records something that does not stop the file from being used but that its author should see
     * (a deprecated spelling, a section no reader of this command uses).
     */
    public void warn(ConfigNode node, String message) {
        warnings.add(new ConfigProblem(node.source(), node.line(), node.path(), message));
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    /** The problems so far, sorted by file and line. */
    public List<ConfigProblem> list() {
        return sorted(problems);
    }

    /** The warnings so far, sorted by file and line; they never make {@link #throwIfAny()} throw. */
    public List<ConfigProblem> warnings() {
        return sorted(warnings);
    }

    /** How many problems so far (cheaper than {@code list().size()} in a reader's loop). */
    public int count() {
        return problems.size();
    }

    /** @throws ConfigException carrying every problem, sorted by file and line, if there is any */
    public void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /**
     * Files in the order they first appear (the main file before the key file it names), then lines;
     * the sort is stable, so problems on one line keep the order they were found in.
     */
    static List<ConfigProblem> sorted(List<ConfigProblem> list) {
        Map<String, Integer> fileOrder = new HashMap<>();
        for (ConfigProblem p : list) {
            fileOrder.putIfAbsent(p.source(), fileOrder.size());
        }
        List<ConfigProblem> copy = new ArrayList<>(list);
        copy.sort(Comparator.<ConfigProblem>comparingInt(p -> fileOrder.get(p.source()))
                .thenComparingInt(ConfigProblem::line));
        return List.copyOf(copy);
    }
}
