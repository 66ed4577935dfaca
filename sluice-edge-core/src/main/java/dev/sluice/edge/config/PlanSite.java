package dev.sluice.edge.config;

import dev.sluice.limiter.Plan;
import java.util.Objects;

/**
 * Where a plan was written in the configuration ({@code plans.free}, or {@code key-overrides.sk_1} for a
 * key's overridden plan), so a store that refuses the plan at load can name the file, line and field
 * ({@link dev.sluice.edge.EdgeConfig#validatePlans}).
 *
 * @param plan the plan as configured
 * @param source the file as the user named it
 * @param line 1-based line, or 0 when unknown
 * @param path the field's path
 */
public record PlanSite(Plan plan, String source, int line, String path) {

    public PlanSite {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(path, "path");
    }
}
