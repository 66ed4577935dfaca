package dev.sluice.edge.testing;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Chromium, headless, driven over the Chrome DevTools Protocol (a WebSocket on a loopback port the
 * browser picks; the JDK's own WebSocket client, no driver): navigate, evaluate script in the page, send real
 * mouse events, take a screenshot. The flags are those the demo report's browser check uses, plus
 * {@code --disable-quic} and the debugging port. One browser per instance; {@link #close()} ends it and its
 * child processes.
 */
public final class HeadlessChromium implements AutoCloseable {

    /** Where Debian installs it. */
    public static final Path BINARY = Path.of("/usr/bin/chromium");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final HttpClient http;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private HeadlessChromium(Process process, HttpClient http, WebSocket socket) {
        this.process = process;
        this.http = http;
        this.socket = socket;
    }

    /**
     * Skips the calling test with a printed reason when Chromium is not installed; fails it instead when
     * {@code CI=true}.
     */
    public static void assumeInstalled(String test) {
        if (Files.isExecutable(BINARY)) {
            return;
        }
        String why = BINARY + " is not installed (apt-get install -y chromium)";
        if ("true".equals(System.getenv("CI"))) {
            fail("CI=true and " + why);
        }
        System.out.println("SKIPPED " + test + ": " + why);
        Assumptions.abort(why);
    }

    /**
     * Starts a browser on {@code about:blank} with a fresh profile under {@code profile}.
     *
     * @param width the window's width in CSS pixels
     * @param height its height
     */
    public static HeadlessChromium start(Path profile, int width, int height) throws Exception {
        Files.createDirectories(profile);
        List<String> command = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                "--window-size=" + width + "," + height, "about:blank"));
        Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(profile.resolve("chromium.log").toFile()).start();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            Path portFile = profile.resolve("DevToolsActivePort");
            Awaitility.await("chromium writes its debugging port").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> !p.isAlive() || Files.exists(portFile) && !Files.readAllLines(portFile).isEmpty());
            if (!p.isAlive()) {
                throw new IllegalStateException("chromium did not open its debugging port: "
                        + Files.readString(profile.resolve("chromium.log")));
            }
            int port = Integer.parseInt(Files.readAllLines(portFile).get(0).strip());
            String target = Awaitility.await("chromium has a page target").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50)).until(() -> pageTarget(http, port), t -> t != null);
            Listener listener = new Listener();
            WebSocket ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                    .buildAsync(URI.create(target), listener).get(10, TimeUnit.SECONDS);
            HeadlessChromium browser = new HeadlessChromium(p, http, ws);
            listener.owner = browser;
            browser.call("Page.enable", JSON.createObjectNode());
            browser.call("Runtime.enable", JSON.createObjectNode());
            return browser;
        } catch (Exception | Error e) {
            end(p);
            http.close();
            throw e;
        }
    }

    /** The page's DevTools WebSocket URL, or {@code null} while chromium lists no page. */
    private static String pageTarget(HttpClient http, int port) throws Exception {
        JsonNode list = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/json/list")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
        for (JsonNode t : list) {
            if ("page".equals(t.path("type").asText())) {
                return t.get("webSocketDebuggerUrl").asText();
            }
        }
        return null;
    }

    /** Sends one DevTools command and waits for its result. */
    public JsonNode call(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode message = JSON.createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", params);
        socket.sendText(message.toString(), true).get(10, TimeUnit.SECONDS);
        JsonNode reply = answer.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (reply.has("error")) {
            throw new IllegalStateException(method + ": " + reply.get("error"));
        }
        return reply.get("result");
    }

    /** Loads {@code url} in the page. */
    public void navigate(String url) throws Exception {
        ObjectNode params = JSON.createObjectNode();
        params.put("url", url);
        call("Page.navigate", params);
    }

    /** The value of a script expression evaluated in the page (promises awaited), as JSON. */
    public JsonNode evaluate(String expression) throws Exception {
        ObjectNode params = JSON.createObjectNode();
        params.put("expression", expression);
        params.put("returnByValue", true);
        params.put("awaitPromise", true);
        JsonNode r = call("Runtime.evaluate", params);
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException(expression + ": " + r.get("exceptionDetails"));
        }
        return r.get("result").path("value");
    }

    /** Waits, polling every 100 ms, until {@code condition} (a script expression) is true. */
    public void await(String condition, Duration timeout) throws Exception {
        try {
            Awaitility.await(condition).atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .until(() -> evaluate("Boolean(" + condition + ")").asBoolean());
        } catch (ConditionTimeoutException e) {
            fail("not true within " + timeout + ": " + condition + "\npage: "
                    + evaluate("document.body ? document.body.innerText : ''").asText());
        }
    }

    /** A real left click (mouse pressed and released) at the centre of the element {@code selector} finds. */
    public void click(String selector) throws Exception {
        JsonNode at = evaluate("(() => { const r = document.querySelector(" + JSON.writeValueAsString(selector)
                + ").getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()");
        for (String type : List.of("mousePressed", "mouseReleased")) {
            ObjectNode e = JSON.createObjectNode();
            e.put("type", type);
            e.put("x", at.get(0).asDouble());
            e.put("y", at.get(1).asDouble());
            e.put("button", "left");
            e.put("clickCount", 1);
            call("Input.dispatchMouseEvent", e);
        }
    }

    /** A PNG of the viewport. */
    public byte[] screenshot() throws Exception {
        ObjectNode params = JSON.createObjectNode();
        params.put("format", "png");
        return Base64.getDecoder().decode(call("Page.captureScreenshot", params).get("data").asText());
    }

    @Override
    public void close() {
        try {
            call("Browser.close", JSON.createObjectNode());
        } catch (Exception e) {
            // ending the process below is enough
        }
        socket.abort();
        end(process);
        http.close();
    }

    private static void end(Process p) {
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    private void onMessage(String text) {
        try {
            JsonNode m = JSON.readTree(text);
            if (m.has("id")) {
                CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
                if (f != null) {
                    f.complete(m);
                }
            }
        } catch (IOException e) {
            // not a protocol message: ignored
        }
    }

    /** Joins fragmented text frames; hands each whole message to the browser object. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        volatile HeadlessChromium owner;

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                HeadlessChromium o = owner;
                if (o != null) {
                    o.onMessage(message);
                }
            }
            ws.request(1);
            return null;
        }
    }

    /** The bytes of {@code png} written to {@code file} (directories made). */
    public static Path write(Path file, byte[] png) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, png);
    }
}
