package dev.sluice.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.Simulation;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/** SPEC §7.3: per-second CSV, a chart, a one-page HTML report. A small blip keeps it fast. */
class ReportTest {

    private static SimulationResult result;

    @BeforeAll
    static void run() {
        result = Simulation.run(ScenarioReader.read("blip.yaml", new StringReader("""
                name: blip
                description: 100 clients, a 3 s blip <answered> with 503 & Retry-After 3.
                duration: 12s
                server: { outages: [ { from: 0s, to: 3s, status: 503, retry_after: 3s } ] }
                fleet: { clients: 100, arrivals: { process: burst, size: 1 }, sdk: { throttle: { enabled: false } } }
                variants: [ { name: no jitter, fleet: { sdk: { retry: { jitter: false } } } }, { name: jitter } ]
                """)));
    }

    @Test
    void theCsvHasAHeaderAndOneLinePerVariantAndSecond() {
        StringWriter out = new StringWriter();
        SeriesWriter.csv(result, out);
        List<String> lines = out.toString().lines().toList();

        assertThat(lines).hasSize(1 + 2 * 12);
        assertThat(lines.get(0)).isEqualTo("variant,second,calls,requests,retries,accepts,rejected,drops,throttled,shed,"
                + "successes,failures,waiting,latency_mean_ms,latency_p99_ms");
        assertThat(lines.get(1)).startsWith("no jitter,0,100,100,0,0,100,");
        assertThat(lines.get(4)).startsWith("no jitter,3,0,100,100,100,0,"); // all 100 retry at Retry-After
    }

    @Test
    void jsonLinesCarryATypeOnEveryLineScenarioThenEverySecondThenTheHeadlines() throws Exception {
        StringWriter out = new StringWriter();
        SeriesWriter.jsonLines(result, out);
        List<String> lines = out.toString().lines().toList();

        assertThat(lines).hasSize(1 + 2 * 12 + 2);
        assertThat(lines.get(0)).isEqualTo("{\"type\":\"scenario\",\"name\":\"blip\",\"seed\":1,\"duration_s\":12,"
                + "\"variants\":[\"no jitter\",\"jitter\"]}");
        assertThat(lines.get(4)).startsWith(
                "{\"type\":\"second\",\"variant\":\"no jitter\",\"second\":3,\"calls\":0,\"requests\":100,");
        assertThat(lines.get(25)).startsWith("{\"type\":\"headline\",\"variant\":\"no jitter\",\"headline\":"
                + "{\"calls_per_s\":");
        assertThat(lines.get(25)).contains("\"recovery_s\":");
        com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String line : lines) {
            assertThat(m.readTree(line).get("type").asText()).isIn(SeriesWriter.JSON_LINE_TYPES);
        }
    }

    @Test
    void theChartIsWellFormedSvgWithFourLinesPerVariantLabelledAxesAndALegend() throws Exception {
        String svg = SvgChart.render(result);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new org.xml.sax.InputSource(new StringReader(svg)));

        NodeList lines = doc.getElementsByTagName("polyline");
        assertThat(lines.getLength()).isEqualTo(2 * 4);
        assertThat(svg).contains(">requests<", ">accepts<", ">retries<", ">drops<", ">simulated second<",
                ">per second<", ">no jitter<", ">jitter<");
    }

    @Test
    void theReportIsOnePageWithTheChartInlineAndNothingFetchedFromElsewhere() {
        String html = HtmlReport.render(result);

        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg", "peak_requests_per_s", "Retry-After 3 s",
                "<td class=\"k\">Little's law, L = λ × W</td><td>L = ",
                "100 clients, a 3 s blip &lt;answered&gt; with 503 &amp; Retry-After 3.");
        assertThat(html).doesNotContain("<script", "<link", "src=", "@import", "url(");
    }

    @Test
    void tickValuesAreRoundAndCoverTheMaximum() {
        assertThat(SvgChart.ticks(10_000)).containsExactly(0, 2_000, 4_000, 6_000, 8_000, 10_000);
        assertThat(SvgChart.ticks(0.9985)).containsExactly(0, 0.2, 0.4, 0.6, 0.8, 1);
        assertThat(SvgChart.ticks(613)).containsExactly(0, 200, 400, 600, 800);
    }
}
