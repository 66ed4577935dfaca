package dev.sluice.sim.report;

import dev.sluice.sim.SimulationResult;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@code series.csv}, {@code chart.svg} and {@code report.html} into a folder (SPEC §7.3).
 * Thread-safe (stateless); two calls writing the same folder at once race as file writes do.
 */
public final class ReportFiles {

    /** The files written, in order. */
    public static final List<String> FILES = List.of("series.csv", "chart.svg", "report.html");

    private ReportFiles() {
    }

    /**
     * Writes the three files, creating {@code dir} if needed.
     *
     * @return the paths written
     * @throws IOException when the folder or a file cannot be written
     */
    public static List<Path> write(SimulationResult result, Path dir) throws IOException {
        Files.createDirectories(dir);
        StringWriter csv = new StringWriter();
        SeriesWriter.csv(result, csv);
        Path a = Files.writeString(dir.resolve("series.csv"), csv.toString(), StandardCharsets.UTF_8);
        Path b = Files.writeString(dir.resolve("chart.svg"), SvgChart.render(result), StandardCharsets.UTF_8);
        Path c = Files.writeString(dir.resolve("report.html"), HtmlReport.render(result), StandardCharsets.UTF_8);
        return List.of(a, b, c);
    }
}
