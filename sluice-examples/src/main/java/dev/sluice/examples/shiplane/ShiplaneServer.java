package dev.sluice.examples.shiplane;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * "Shiplane", the sample shipping-label API that the demo puts behind the Sluice edge. It knows
 * nothing about rate limits: it answers its four routes after an injected latency, and during a
 * <em>blip</em> (switched on and off by the caller) it answers every {@code /v1/*} request with 503.
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><th>route</th><th>answer</th></tr>
 *   <tr><td>{@code POST /v1/labels}</td><td>201 {@code {"label_id","tracking_number"}}; buys one label.
 *       Requires {@code Idempotency-Key} (400 {@code idempotency_key_required} without)</td></tr>
 *   <tr><td>{@code POST /v1/labels:batch}</td><td>201 {@code {"labels":[...]}} with 10 labels (the
 *       edge charges it cost 10); requires {@code Idempotency-Key} too</td></tr>
 *   <tr><td>{@code GET /v1/quotes}</td><td>200 {@code {"quotes":[...]}}, three carrier prices</td></tr>
 *   <tr><td>{@code POST /v1/login}</td><td>200 {@code {"token"}}; no credential needed</td></tr>
 *   <tr><td>{@code GET /_shiplane/stats}</td><td>200, the counters of {@link #stats()} as JSON
 *       (never blipped, no latency)</td></tr>
 *   <tr><td>{@code POST /_shiplane/blip?on=true|false}</td><td>204; switches the blip (for a
 *       Shiplane run alone with {@code sluice upstream})</td></tr>
 * </table>
 *
 * <p>Shiplane deduplicates <em>nothing</em>: two requests with the same {@code Idempotency-Key}
 * buy two labels. That is deliberate — keeping a retried write from buying a second label is the
 * job of the layers in front of it — and it counts, per key, how many labels each bought
 * ({@link #labelsBoughtWith(String)}, {@link ShiplaneStats#duplicateLabels()}) so tests can see
 * whether they did. A label request whose JSON body has a {@code "reference"} (the caller's order
 * number) is also counted per order: a client that resends one order under a new Idempotency-Key
 * buys it twice too, and that counts as a duplicate.
 *
 * <p>A blip can also be <em>slow</em> ({@link ShiplaneConfig#blipSlowShare()}): that share of the
 * requests is served normally but only after {@link ShiplaneConfig#blipSlowLatency()}, as an
 * overloaded API both fails and stalls; a client that times out first does not know its label was
 * bought.
 *
 * <p>Built on the JDK's {@code com.sun.net.httpserver} with one virtual thread per exchange: the
 * latency is a plain sleep on a virtual thread (no timer plumbing), there is no dependency to
 * carry, and a few thousand requests a second — far above what the demo's fleet gets past the
 * edge — cost little. Thread-safe.
 */
public final class ShiplaneServer implements AutoCloseable {

    /** Labels a {@code POST /v1/labels:batch} buys (and the route cost of the demo config). */
    public static final int BATCH_SIZE = 10;

    /** Request bodies above this are refused with 413. */
    static final int MAX_BODY_BYTES = 1 << 20;

    /** Keys remembered for {@link #labelsBoughtWith}; past it, labels are still counted, keys not. */
    static final int MAX_TRACKED_KEYS = 1_000_000;

    private static final String JSON = "application/json";
    private static final String PROBLEM_JSON = "application/problem+json";

    private final ShiplaneConfig config;
    private final HttpServer server;
    private final ExecutorService executor;
    private final Object randomLock = new Object();
    private volatile boolean blip;

    private final AtomicLong labelSequence = new AtomicLong();
    private final LongAdder requests = new LongAdder();
    private final LongAdder unavailable = new LongAdder();
    private final LongAdder duplicateLabels = new LongAdder();
    private final LongAdder slow = new LongAdder();
    private final Map<String, AtomicInteger> labelsByKey = new ConcurrentHashMap<>();
    /** Labels per order: the {@code "reference"} of the request body, when it has one. */
    private final Map<String, AtomicInteger> labelsByReference = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> requestsByRoute = new ConcurrentHashMap<>();

    private ShiplaneServer(ShiplaneConfig config, HttpServer server, ExecutorService executor) {
        this.config = config;
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code config.host():config.port()} and starts serving.
     *
     * @throws IOException if the address cannot be bound (for example, the port is taken)
     */
    public static ShiplaneServer start(ShiplaneConfig config) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 1024);
        ExecutorService executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("shiplane-", 0).factory());
        ShiplaneServer shiplane = new ShiplaneServer(config, http, executor);
        http.createContext("/", shiplane::handle);
        http.setExecutor(executor);
        http.start();
        return shiplane;
    }

    /** The bound port (the chosen one when the config said 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://host:port}, without a trailing slash. */
    public URI baseUri() {
        return URI.create("http://" + hostForUri() + ":" + port());
    }

    /** Switches the blip: while on, every {@code /v1/*} request is answered 503 at once. */
    public void blip(boolean on) {
        this.blip = on;
    }

    /** The configuration it runs with. */
    public ShiplaneConfig config() {
        return config;
    }

    /** Whether a blip is on. */
    public boolean blipping() {
        return blip;
    }

    /** How many labels requests carrying {@code idempotencyKey} bought (0 if none or untracked). */
    public int labelsBoughtWith(String idempotencyKey) {
        AtomicInteger n = labelsByKey.get(idempotencyKey);
        return n == null ? 0 : n.get();
    }

    /** A consistent-enough snapshot of the counters (each counter is read once). */
    public ShiplaneStats stats() {
        Map<String, Long> byRoute = new java.util.TreeMap<>();
        requestsByRoute.forEach((route, n) -> byRoute.put(route, n.sum()));
        return new ShiplaneStats(requests.sum(), labelSequence.get(), duplicateLabels.sum(), unavailable.sum(),
                slow.sum(), blip, Map.copyOf(byRoute));
    }

    /** Stops accepting, waits up to one second for exchanges in progress, and releases the port. */
    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
    }

    // --- routing ---

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (path.startsWith("/_shiplane/")) {
                admin(exchange, method, path);
                return;
            }
            requests.increment();
            String route = route(method, path);
            if (route == null) {
                drain(exchange);
                problem(exchange, 404, "not_found", "Not Found", "No Shiplane resource at " + path);
                return;
            }
            if (route.startsWith("405 ")) {
                drain(exchange);
                exchange.getResponseHeaders().set("Allow", route.substring(4));
                problem(exchange, 405, "method_not_allowed", "Method Not Allowed",
                        method + " is not allowed here; use " + route.substring(4));
                return;
            }
            requestsByRoute.computeIfAbsent(route, r -> new LongAdder()).increment();
            long latencyNanos;
            if (blip && !servedSlowly()) {
                unavailable.increment();
                drain(exchange);
                exchange.getResponseHeaders().set("Retry-After", Integer.toString(config.blipRetryAfterSeconds()));
                problem(exchange, 503, "unavailable", "Service Unavailable", "Shiplane is briefly unavailable");
                return;
            } else if (blip) {
                slow.increment();
                latencyNanos = config.blipSlowLatency().toNanos();
            } else {
                latencyNanos = latencyNanos();
            }
            byte[] body = readBody(exchange);
            if (body == null) {
                problem(exchange, 413, "payload_too_large", "Payload Too Large",
                        "request bodies are limited to " + MAX_BODY_BYTES + " bytes");
                return;
            }
            switch (route) {
                case "POST /v1/labels" -> buyLabels(exchange, body, 1, latencyNanos);
                case "POST /v1/labels:batch" -> buyLabels(exchange, body, BATCH_SIZE, latencyNanos);
                case "GET /v1/quotes" -> quotes(exchange, latencyNanos);
                case "POST /v1/login" -> login(exchange, latencyNanos);
                default -> throw new IllegalStateException("unrouted " + route);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing: the exchange is abandoned
        }
    }

    /** "METHOD /path" of a known route, "405 ALLOWED" for a known path with the wrong method, else null. */
    private static String route(String method, String path) {
        String allowed = switch (path) {
            case "/v1/labels", "/v1/labels:batch", "/v1/login" -> "POST";
            case "/v1/quotes" -> "GET";
            default -> null;
        };
        if (allowed == null) {
            return null;
        }
        return allowed.equals(method) ? method + " " + path : "405 " + allowed;
    }

    private void buyLabels(HttpExchange exchange, byte[] body, int count, long latencyNanos)
            throws IOException, InterruptedException {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank() || key.length() > 255) {
            problem(exchange, 400, "idempotency_key_required", "Idempotency-Key required",
                    "buying labels needs an Idempotency-Key header (1 to 255 characters)");
            return;
        }
        pause(latencyNanos);
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                labels.append(',');
            }
            labels.append(newLabel());
        }
        countLabels(key, reference(body), count);
        String json = count == 1 ? labels.toString() : "{\"labels\":[" + labels + "]}";
        send(exchange, 201, JSON, json);
    }

    /**
     * Counts {@code count} labels bought with {@code key} for the order {@code reference}; they are
     * duplicates when that order (or, without a reference, that key) had bought one already.
     */
    private void countLabels(String key, java.util.Optional<String> reference, int count) {
        int byKey = addTracked(labelsByKey, key, count);
        int before = reference.map(r -> addTracked(labelsByReference, r, count)).orElse(byKey);
        if (before > 0) {
            duplicateLabels.add(count);
        }
    }

    /** Adds {@code count} to {@code map}'s counter of {@code id}; returns the count before (0 when untracked). */
    private static int addTracked(Map<String, AtomicInteger> map, String id, int count) {
        AtomicInteger n = map.get(id);
        if (n == null && map.size() < MAX_TRACKED_KEYS) {
            n = map.computeIfAbsent(id, k -> new AtomicInteger());
        }
        return n == null ? 0 : n.getAndAdd(count);
    }

    private String newLabel() {
        long id = labelSequence.incrementAndGet();
        long tracking;
        synchronized (randomLock) {
            tracking = config.random().nextLong(1_000_000_000_000L);
        }
        return String.format("{\"label_id\":\"lbl_%08d\",\"tracking_number\":\"SHP%012d\"}", id, tracking);
    }

    private void quotes(HttpExchange exchange, long latencyNanos) throws IOException, InterruptedException {
        pause(latencyNanos);
        int ground;
        int express;
        synchronized (randomLock) {
            ground = 600 + config.random().nextInt(400);
            express = 1800 + config.random().nextInt(900);
        }
        send(exchange, 200, JSON, "{\"quotes\":["
                + "{\"carrier\":\"shiplane\",\"service\":\"ground\",\"amount_cents\":" + ground + ",\"days\":4},"
                + "{\"carrier\":\"shiplane\",\"service\":\"express\",\"amount_cents\":" + express + ",\"days\":1},"
                + "{\"carrier\":\"shiplane\",\"service\":\"economy\",\"amount_cents\":" + (ground * 3 / 4) + ",\"days\":7}"
                + "]}");
    }

    private void login(HttpExchange exchange, long latencyNanos) throws IOException, InterruptedException {
        pause(latencyNanos);
        long token;
        synchronized (randomLock) {
            token = config.random().nextLong(Long.MAX_VALUE);
        }
        send(exchange, 200, JSON, "{\"token\":\"tok_" + Long.toHexString(token) + "\"}");
    }

    private void admin(HttpExchange exchange, String method, String path) throws IOException {
        drain(exchange);
        if (path.equals("/_shiplane/stats") && method.equals("GET")) {
            send(exchange, 200, JSON, stats().toJson());
        } else if (path.equals("/_shiplane/blip") && method.equals("POST")) {
            String query = exchange.getRequestURI().getRawQuery();
            if ("on=true".equals(query) || "on=false".equals(query)) {
                blip(query.endsWith("true"));
                exchange.sendResponseHeaders(204, -1);
            } else {
                problem(exchange, 400, "bad_request", "Bad Request", "use ?on=true or ?on=false");
            }
        } else {
            problem(exchange, 404, "not_found", "Not Found", "No Shiplane resource at " + path);
        }
    }

    // --- plumbing ---

    /** One normal answer's latency, latency ± jitter. */
    private long latencyNanos() {
        synchronized (randomLock) {
            return latencyNanos(config.latency(), config.latencyJitter(), config.random());
        }
    }

    /** Whether a request during a blip is served slowly rather than answered 503 ({@code blipSlowShare}). */
    private boolean servedSlowly() {
        if (config.blipSlowShare() <= 0) {
            return false;
        }
        synchronized (randomLock) {
            return config.random().nextDouble() < config.blipSlowShare();
        }
    }

    /** Sleeps {@code nanos}; a virtual thread parks, no carrier is held. */
    private static void pause(long nanos) throws InterruptedException {
        if (nanos > 0) {
            Thread.sleep(Duration.ofNanos(nanos));
        }
    }

    /**
     * The {@code "reference"} string member of a label request's JSON body (the caller's order
     * number), if there is one: labels are counted per order, so that a client that resends an order
     * under a new Idempotency-Key is seen buying it twice.
     */
    static java.util.Optional<String> reference(byte[] body) {
        java.util.regex.Matcher m = REFERENCE.matcher(new String(body, StandardCharsets.UTF_8));
        return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }

    private static final java.util.regex.Pattern REFERENCE =
            java.util.regex.Pattern.compile("\"reference\"\\s*:\\s*\"([^\"\\\\]{1,255})\"");

    /** One answer's latency: uniform in {@code [mean - jitter, mean + jitter]}, in nanoseconds. */
    static long latencyNanos(Duration mean, Duration jitter, java.util.random.RandomGenerator random) {
        long j = jitter.toNanos();
        return j == 0 ? mean.toNanos() : mean.toNanos() - j + random.nextLong(2 * j + 1);
    }

    /** The body, or null when it exceeds {@link #MAX_BODY_BYTES}. */
    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            return body.length > MAX_BODY_BYTES ? null : body;
        }
    }

    private static void drain(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.skip(MAX_BODY_BYTES); // enough to keep the connection usable for a sane client
        }
    }

    private static void problem(HttpExchange exchange, int status, String code, String title, String detail)
            throws IOException {
        send(exchange, status, PROBLEM_JSON, "{\"type\":\"https://shiplane.example/errors/" + code
                + "\",\"title\":\"" + title + "\",\"status\":" + status + ",\"detail\":\"" + jsonEscape(detail) + "\"}");
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    static String jsonEscape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private String hostForUri() {
        String h = config.host();
        return h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h;
    }
}
