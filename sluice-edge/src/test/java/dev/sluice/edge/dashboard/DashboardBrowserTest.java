package dev.sluice.edge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.HeadlessChromium;
import dev.sluice.edge.testing.TestUpstream;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin port's dashboard rendered by a real headless Chromium (Debian's package) against a running
 * edge: the numbers of the traffic the test sent appear in the page, a screenshot is written under
 * {@code target/dashboard/}, and the pause button (a real mouse click) stops and resumes the updates.
 */
@Tag("slow")
class DashboardBrowserTest {

    private static final String FREE_1 = "sk_test_free_1";
    private static final String FREE_2 = "sk_test_free_2";
    private static final String PRO_1 = "sk_test_pro_1";
    private static final String TOP_KEY_CELLS = "[...document.querySelectorAll('#top-keys tbody tr')]"
            + ".map(tr => [...tr.cells].map(td => td.textContent))";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theLivePageShowsTheRefusedKeyByIdWithItsCountAndPausesOnAClick() throws Exception {
        HeadlessChromium.assumeInstalled("theLivePageShowsTheRefusedKeyByIdWithItsCountAndPausesOnAClick");
        String free1 = KeyIds.DEFAULT.id(FREE_1);
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            edge.spend(FREE_2, 7_999);
            assertThat(edge.get("/v1/quotes", FREE_2).statusCode()).isEqualTo(200); // the soft limit: SPEC §3.8
            edge.time.advance(Duration.ofSeconds(60));
            int refused = 0;
            for (int i = 0; i < 30; i++) { // the free burst (q=20) admits 20 and refuses 10
                refused += edge.get("/v1/quotes", FREE_1).statusCode() == 429 ? 1 : 0;
            }
            assertThat(refused).isEqualTo(10);
            for (int i = 0; i < 5; i++) {
                assertThat(edge.post("/v1/labels", PRO_1, "{}").statusCode()).isEqualTo(200);
            }
            edge.time.advance(Duration.ofSeconds(1));

            try (HeadlessChromium browser = HeadlessChromium.start(dir.resolve("profile"), 1280, 1000)) {
                browser.navigate("http://127.0.0.1:" + edge.server.adminPort() + "/");
                browser.await("document.querySelector('#top-keys tbody tr[data-key-id]') && "
                        + "Number(document.getElementById('status').dataset.updates) >= 3", Duration.ofSeconds(30));

                String dom = browser.evaluate("document.documentElement.outerHTML").asText();
                assertThat(dom).contains("data-key-id=\"" + free1 + "\"").doesNotContain("sk_test");
                assertThat(rows(browser, TOP_KEY_CELLS)).containsExactly(List.of(free1, "free", "10", "10", "0", "0"));
                assertThat(rows(browser, "[...document.querySelectorAll('#rates tbody tr')]"
                        + ".map(tr => [...tr.cells].map(td => td.textContent))")).containsExactly(
                        // plan, route, admitted/s, 429/s, 503/s, shed/s, other/s, then totals since the start
                        List.of("free", "GET /v1/quotes", "2.0", "1.0", "0.0", "0.0", "0.0", "21", "10", "0", "0"),
                        List.of("pro", "POST /v1/labels", "0.5", "0.0", "0.0", "0.0", "0.0", "5", "0", "0", "0"));
                assertThat(browser.evaluate("document.getElementById('store-state').textContent").asText())
                        .isEqualTo("in memory");
                assertThat(rows(browser, "[...document.querySelectorAll('#warnings tbody tr')]"
                        + ".map(tr => [...tr.cells].slice(1, 7).map(td => td.textContent))"))
                        .containsExactly(List.of(KeyIds.DEFAULT.id(FREE_2), "free", "daily", "8000", "10000", "80"));
                assertThat(browser.evaluate("document.getElementById('status').dataset.state").asText())
                        .isEqualTo("live");

                byte[] png = browser.screenshot();
                Path shot = HeadlessChromium.write(Path.of("target", "dashboard", "dashboard.png"), png);
                BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
                assertThat(image.getWidth()).isEqualTo(1280);
                assertThat(pixelsNear(image, 0x1f9d55)).as("admitted green in " + shot).isGreaterThan(50);
                assertThat(pixelsNear(image, 0xc27c0e)).as("429 amber in " + shot).isGreaterThan(20);

                // a real click on Pause: the page stops polling, so five more refusals do not show
                browser.click("#pause");
                browser.await("document.getElementById('status').dataset.state === 'paused'", Duration.ofSeconds(5));
                assertThat(browser.evaluate("document.getElementById('pause').textContent").asText())
                        .isEqualTo("Resume");
                int more = 0;
                for (int i = 0; i < 15; i++) { // the second that passed gave the burst 10 back: 10 admitted, 5 refused
                    more += edge.get("/v1/quotes", FREE_1).statusCode() == 429 ? 1 : 0;
                }
                assertThat(more).isEqualTo(5);
                // a paused page is seen not to change for more than two polling periods (real time: the page's own timer)
                await("the paused page keeps 10 refusals").during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(5))
                        .until(() -> rows(browser, TOP_KEY_CELLS).get(0).get(2).equals("10"));

                // another click resumes: the page catches up with the edge
                browser.click("#pause");
                browser.await("document.querySelector('#top-keys tbody tr[data-key-id] td.rejections')"
                        + ".textContent === '15'", Duration.ofSeconds(10));
                assertThat(browser.evaluate("document.getElementById('status').dataset.state").asText())
                        .isEqualTo("live");

                // the plan filter: only pro's rows, and no pro key was refused
                browser.evaluate("(() => { const s = document.getElementById('plan-filter'); s.value = 'pro'; "
                        + "s.dispatchEvent(new Event('change')); return s.value; })()");
                assertThat(rows(browser, "[...document.querySelectorAll('#rates tbody tr')]"
                        + ".map(tr => [tr.dataset.plan, tr.dataset.route])"))
                        .containsExactly(List.of("pro", "POST /v1/labels"));
                assertThat(browser.evaluate("document.querySelector('#top-keys tbody').textContent").asText())
                        .isEqualTo("no key refused");
            }
        }
        assertThat(Files.size(Path.of("target", "dashboard", "dashboard.png"))).isPositive();
    }

    private static List<List<String>> rows(HeadlessChromium browser, String expression) throws Exception {
        List<List<String>> out = new ArrayList<>();
        for (JsonNode row : browser.evaluate(expression)) {
            List<String> cells = new ArrayList<>();
            row.forEach(c -> cells.add(c.asText()));
            out.add(cells);
        }
        return out;
    }

    private static long pixelsNear(BufferedImage image, int rgb) {
        long n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int p = image.getRGB(x, y);
                if (Math.abs(((p >> 16) & 0xff) - ((rgb >> 16) & 0xff)) <= 24
                        && Math.abs(((p >> 8) & 0xff) - ((rgb >> 8) & 0xff)) <= 24
                        && Math.abs((p & 0xff) - (rgb & 0xff)) <= 24) {
                    n++;
                }
            }
        }
        return n;
    }
}
