package dev.sluice.examples.demo;

import dev.sluice.examples.demo.report.RunReport;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a demo run produced.
 *
 * @param report the numbers of the run
 * @param reportFile the HTML report written (absolute)
 */
public record DemoResult(RunReport report, Path reportFile) {

    public DemoResult {
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(reportFile, "reportFile");
    }
}
