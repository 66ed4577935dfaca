package dev.sluice.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.Headline;
import dev.sluice.sim.Simulation;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalTableTest {

    private static String print(SimulationResult r, boolean perSecond) {
        StringWriter text = new StringWriter();
        TerminalTable.print(r, new PrintWriter(text), perSecond);
        return text.toString();
    }

    @Test
    void aWideGridIsPrintedWithItsLongerSideDownThePageInColumnsAsWideAsTheirCells() {
        // 1 row (K) × 3 columns: printed as 3 lines of one K column
        SimulationResult r = Simulation.run(ScenarioReader.read("g.yaml", new StringReader("""
                name: g
                duration: 3s
                fleet: { clients: 1, arrivals: { process: constant, rate: 2 } }
                grid:
                  rows: { label: K, values: [ { name: "2", fleet: { sdk: { throttle: { k: 2 } } } } ] }
                  columns:
                    label: accept ratio
                    values: [ { name: "0.0" }, { name: "0.5" }, { name: "1.0" } ]
                  metric: drop_fraction
                  expected: [ [ 0, 0, 0 ] ]
                """)));

        List<String> lines = print(r, true).lines().toList();

        assertThat(lines).containsSubsequence(
                "drop_fraction by accept ratio (rows) and K (columns); expected in brackets",
                "accept ratio         K = 2",
                "0.0           0.000 (0.00)",
                "0.5           0.000 (0.00)",
                "1.0           0.000 (0.00)");
    }

    @Test
    void headlineFiguresAreAlignedInColumnsAndLittlesLawIsStated() {
        Map<String, Double> v = new LinkedHashMap<>();
        for (String m : Headline.METRICS) {
            v.put(m, Double.NaN);
        }
        v.put("useful_throughput_per_s", 188.744);
        v.put("calls_per_s", 25.0);
        v.put("waiting_mean", 97.9);
        v.put("wait_entries_per_s", 20.0);
        v.put("wait_mean_ms", 4_890.0);

        StringWriter text = new StringWriter();
        TerminalTable.headline(new Headline(v), ScenarioReader.read("x.yaml", new StringReader(
                "name: x\nduration: 10s\n")), new PrintWriter(text));

        List<String> lines = text.toString().lines().toList();
        assertThat(lines.get(1)).isEqualTo("  calls_per_s                      25   useful_throughput_per_s     188.744"
                + "   waiting_mean                   97.9");
        assertThat(lines.get(2)).isEqualTo("  wait_entries_per_s               20   wait_mean_ms                   4890");
        assertThat(lines.get(3)).isEqualTo("  Little's law: L = 97.9 calls waiting; λ × W = 20.00/s × 4.89 s = 97.8");
    }

    @Test
    void aRecoveryThatNeverHappensReadsNeverRatherThanMinusOne() {
        Map<String, Double> v = new LinkedHashMap<>();
        for (String m : Headline.METRICS) {
            v.put(m, Double.NaN);
        }
        v.put("recovery_s", -1.0);

        StringWriter text = new StringWriter();
        TerminalTable.headline(new Headline(v), ScenarioReader.read("x.yaml", new StringReader(
                "name: x\nduration: 10s\n")), new PrintWriter(text));

        assertThat(text.toString().lines().toList().get(1).strip()).matches("recovery_s +never");
    }
}
