package dev.sluice.examples.demo;

import dev.sluice.examples.demo.report.ComparisonReport;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a demo run produced.
 *
 * @param report the numbers of the runs
 * @param reportFile the HTML report written (absolute)
 */
public record DemoResult(ComparisonReport report, Path reportFile) {

    public DemoResult {
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(reportFile, "reportFile");
    }
}
