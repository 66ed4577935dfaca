package dev.sluice.edge.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.edge.config.AdminConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.EdgeRules;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.edge.keys.KeyAdministration.KeyRecord;
import dev.sluice.edge.keys.KeyAdministration.KeyStoreException;
import dev.sluice.edge.keys.KeyPlans;
import dev.sluice.edge.keys.StoredKey;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key admin API on the admin port, under {@code /admin/v1/}: JSON in and out, every change logged on
 * {@code dev.sluice.edge.admin} with the key's id (never the key) and the caller's address.
 *
 * <table>
 *   <caption>Endpoints</caption>
 *   <tr><td>{@code POST /admin/v1/keys}</td><td>create: {@code {"plan", "renewal_day"?, "overrides"?: {policy:
 *       q}, "label"?, "warning_destination"?}} → 201 with the clear {@code key}, shown this once</td></tr>
 *   <tr><td>{@code GET /admin/v1/keys/{id}}</td><td>the key's record</td></tr>
 *   <tr><td>{@code DELETE /admin/v1/keys/{id}}</td><td>revoke</td></tr>
 *   <tr><td>{@code PUT /admin/v1/keys/{id}/plan}</td><td>{@code {"plan"}}: move; with {@code ?dry-run=true}
 *       nothing changes and the answer is the key's standing under the new plan</td></tr>
 *   <tr><td>{@code PUT|DELETE /admin/v1/keys/{id}/overrides/{policy}}</td><td>{@code {"q"}}: the key's own
 *       {@code q} for one policy, or back to the plan's</td></tr>
 *   <tr><td>{@code GET /admin/v1/keys/{id}/usage}</td><td>the key's usage per policy, uncharged</td></tr>
 * </table>
 *
 * <p>Access: with {@code admin.token} set every request needs {@code Authorization: Bearer <token>} (401 and
 * nothing done without it); without a token the API answers only on a loopback-bound admin port (403
 * otherwise). Store calls block, so they run on two threads of this API's own, never on the event loop.
 * Errors are RFC 9457 problem details. Requests that are not under {@code /admin/v1/} pass on to the next
 * handler.
 */
public final class KeyAdminApi {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.edge.admin");
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String PREFIX = "/admin/v1/";

    private final EdgeDecider decider;
    private final LimiterStore store;
    private final KeyAdministration keys;
    private final TimeSource time;
    private final AdminAccess access;
    private final ExecutorService work;

    /**
     * @param admin the admin section (host, token)
     * @param decider the running decider (its rules name the plans)
     * @param store the limiter store (usage reads)
     * @param keys the key store's write side, or empty (the key endpoints then answer 404)
     * @param time the clock (unused by reads; kept for future expiry)
     */
    public KeyAdminApi(AdminConfig admin, EdgeDecider decider, LimiterStore store, Optional<KeyAdministration> keys,
            TimeSource time) {
        this.decider = decider;
        this.store = store;
        this.keys = keys.orElse(null);
        this.time = time;
        this.access = new AdminAccess(admin);
        this.work = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-admin-api");
            t.setDaemon(true);
            return t;
        });
    }

    /** A pipeline handler for one admin connection. */
    public SimpleChannelInboundHandler<FullHttpRequest> handler(DateField dates) {
        return new Handler(dates);
    }

    /**
     * Stops the API's threads: requests in progress get up to two seconds to finish, then they are
     * interrupted. Idempotent.
     */
    public void close() {
        work.shutdown();
        try {
            if (!work.awaitTermination(2, TimeUnit.SECONDS)) {
                work.shutdownNow();
                work.awaitTermination(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            work.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** An answer: status and JSON body. */
    record Reply(int status, JsonNode body) {
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final DateField dates;

        Handler(DateField dates) {
            super(false);
            this.dates = dates;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            QueryStringDecoder uri = new QueryStringDecoder(req.uri());
            if (!uri.path().startsWith(PREFIX)) {
                ctx.fireChannelRead(req); // the next handler releases it
                return;
            }
            String from = ctx.channel().remoteAddress() instanceof InetSocketAddress a
                    ? a.getAddress().getHostAddress() : "?";
            Reply denied = access.check(req);
            if (denied != null) {
                LOG.warn("admin: {} {} refused ({}) from {}", req.method(), uri.path(), denied.status(), from);
                req.release();
                write(ctx, req, denied);
                return;
            }
            HttpMethod method = req.method();
            String body = req.content().toString(StandardCharsets.UTF_8);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            req.release();
            work.execute(() -> {
                Reply r;
                try {
                    r = route(method, uri, body, from);
                } catch (KeyStoreException e) {
                    LOG.warn("admin: {} {}: key store failed", method, uri.path(), e);
                    r = problem(503, "key_store_unavailable", "The key store does not answer: " + e.getMessage());
                } catch (BadRequest e) {
                    r = problem(e.status, e.code, e.getMessage());
                } catch (RuntimeException e) {
                    LOG.error("admin: {} {} failed", method, uri.path(), e);
                    r = problem(500, "internal_error", e.toString());
                }
                Reply reply = r;
                ctx.executor().execute(() -> write(ctx, keepAlive, reply));
            });
        }

        private void write(ChannelHandlerContext ctx, FullHttpRequest req, Reply r) {
            write(ctx, HttpUtil.isKeepAlive(req), r);
        }

        private void write(ChannelHandlerContext ctx, boolean keepAlive, Reply r) {
            byte[] bytes = r.body().toString().getBytes(StandardCharsets.UTF_8);
            FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(r.status()), Unpooled.wrappedBuffer(bytes));
            resp.headers().set(HttpHeaderNames.CONTENT_TYPE, r.status() >= 400 ? "application/problem+json"
                    : "application/json");
            resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            resp.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            resp.headers().set(HttpHeaderNames.DATE, dates.now());
            if (r.status() == 401) {
                resp.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"sluice-admin\"");
            }
            HttpUtil.setKeepAlive(resp, keepAlive);
            if (keepAlive) {
                ctx.writeAndFlush(resp);
            } else {
                ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    // ---- routing --------------------------------------------------------------------------------------

    Reply route(HttpMethod method, QueryStringDecoder uri, String body, String from) {
        String[] p = uri.path().substring(PREFIX.length()).split("/", -1);
        if (p.length == 0 || !p[0].equals("keys")) {
            return problem(404, "not_found", "No such admin resource: " + uri.path());
        }
        if (keys == null) {
            return problem(404, "no_key_store", "This edge has no key-store section: its keys are in its file.");
        }
        if (p.length == 1 || (p.length == 2 && p[1].isEmpty())) {
            if (method.equals(HttpMethod.POST)) {
                return create(body, from);
            }
            return problem(405, "method_not_allowed", "POST /admin/v1/keys creates a key.");
        }
        String id = p[1];
        if (p.length == 2) {
            if (method.equals(HttpMethod.GET)) {
                return keys.find(id).map(r -> new Reply(200, record(r))).orElseGet(() -> noKey(id));
            }
            if (method.equals(HttpMethod.DELETE)) {
                Optional<KeyRecord> r = keys.revoke(id);
                r.ifPresent(k -> LOG.info("admin: key revoked key_id={} from={}", id, from));
                return r.map(k -> new Reply(200, record(k))).orElseGet(() -> noKey(id));
            }
            return problem(405, "method_not_allowed", "GET or DELETE /admin/v1/keys/{id}.");
        }
        switch (p[2]) {
            case "plan" -> {
                if (!method.equals(HttpMethod.PUT) || p.length != 3) {
                    return problem(405, "method_not_allowed", "PUT /admin/v1/keys/{id}/plan.");
                }
                boolean dryRun = uri.parameters().getOrDefault("dry-run", List.of("false")).contains("true");
                return changePlan(id, body, dryRun, from);
            }
            case "overrides" -> {
                if (p.length != 4 || p[3].isEmpty()) {
                    return problem(404, "not_found", "PUT or DELETE /admin/v1/keys/{id}/overrides/{policy}.");
                }
                return override(method, id, p[3], body, from);
            }
            case "usage" -> {
                if (!method.equals(HttpMethod.GET) || p.length != 3) {
                    return problem(405, "method_not_allowed", "GET /admin/v1/keys/{id}/usage.");
                }
                return usage(id);
            }
            default -> {
                return problem(404, "not_found", "No such admin resource: " + uri.path());
            }
        }
    }

    private Reply create(String body, String from) {
        JsonNode in = json(body);
        String plan = text(in, "plan").orElseThrow(() -> new BadRequest(400, "invalid_request",
                "plan: required (one of " + String.join(", ", plans().keySet()) + ")"));
        Plan p = plan(plan);
        int renewalDay = in.has("renewal_day") ? intIn(in.get("renewal_day"), "renewal_day", 0, 31) : 0;
        Map<String, Long> overrides = new LinkedHashMap<>();
        JsonNode o = in.get("overrides");
        if (o != null && !o.isNull()) {
            if (!o.isObject()) {
                throw new BadRequest(400, "invalid_request", "overrides: an object of policy name to q");
            }
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                policy(p, e.getKey());
                overrides.put(e.getKey(), (long) q(e.getValue().isObject() ? e.getValue().get("q") : e.getValue()));
            }
        }
        Optional<String> label = text(in, "label");
        Optional<String> url = text(in, "warning_destination");
        url.ifPresent(KeyAdminApi::checkDestination);
        KeyAdministration.CreatedKey created = keys.create(plan, renewalDay, overrides, label, url);
        LOG.info("admin: key created key_id={} plan={} overrides={} from={}", created.record().key().keyId(), plan,
                overrides, from);
        ObjectNode out = record(created.record());
        out.put("key", created.apiKey());
        return new Reply(201, out);
    }

    private Reply changePlan(String id, String body, boolean dryRun, String from) {
        JsonNode in = json(body);
        String to = text(in, "plan").orElseThrow(() -> new BadRequest(400, "invalid_request", "plan: required"));
        Plan target = plan(to);
        KeyRecord current = keys.find(id).filter(r -> r.revokedAt().isEmpty()).orElse(null);
        if (current == null) {
            return noKey(id);
        }
        if (dryRun) {
            StoredKey k = current.key();
            Plan after = KeyPlans.apply(target, k.renewalDay(), k.quotaOverrides());
            List<PolicyState> states = store.usageAsync(k.keyHash(), after).toCompletableFuture().join();
            ObjectNode out = JSON.createObjectNode();
            out.put("key_id", id);
            out.put("dry_run", true);
            out.put("from", k.plan());
            out.put("to", to);
            ArrayNode policies = out.putArray("policies");
            boolean wouldDeny = false;
            for (PolicyState s : states) {
                ObjectNode n = policies.addObject();
                n.put("policy", s.policy().name());
                n.put("q", s.policy().quota());
                n.put("used", s.used());
                n.put("remaining", s.remaining());
                boolean exhausted = s.policy() instanceof QuotaPolicy && s.remaining() <= 0;
                n.put("exhausted", exhausted);
                wouldDeny |= exhausted;
            }
            out.put("would_deny_now", wouldDeny);
            return new Reply(200, out);
        }
        Optional<KeyRecord> r = keys.changePlan(id, to);
        r.ifPresent(k -> LOG.info("admin: key plan changed key_id={} from_plan={} to_plan={} from={}", id,
                current.key().plan(), to, from));
        return r.map(k -> new Reply(200, record(k))).orElseGet(() -> noKey(id));
    }

    private Reply override(HttpMethod method, String id, String policy, String body, String from) {
        KeyRecord current = keys.find(id).filter(r -> r.revokedAt().isEmpty()).orElse(null);
        if (current == null) {
            return noKey(id);
        }
        policy(plan(current.key().plan()), policy);
        OptionalLong q;
        if (method.equals(HttpMethod.PUT)) {
            q = OptionalLong.of(q(json(body).get("q")));
        } else if (method.equals(HttpMethod.DELETE)) {
            q = OptionalLong.empty();
        } else {
            return problem(405, "method_not_allowed", "PUT or DELETE /admin/v1/keys/{id}/overrides/{policy}.");
        }
        Optional<KeyRecord> r = keys.setOverride(id, policy, q);
        r.ifPresent(k -> LOG.info("admin: key override set key_id={} policy={} q={} from={}", id, policy,
                q.isPresent() ? String.valueOf(q.getAsLong()) : "plan", from));
        return r.map(k -> new Reply(200, record(k))).orElseGet(() -> noKey(id));
    }

    private Reply usage(String id) {
        KeyRecord current = keys.find(id).filter(r -> r.revokedAt().isEmpty()).orElse(null);
        if (current == null) {
            return noKey(id);
        }
        Plan plan;
        try {
            plan = KeyPlans.resolve(plans(), current.key());
        } catch (IllegalArgumentException e) {
            throw new BadRequest(409, "plan_not_configured", e.getMessage());
        }
        List<PolicyState> states = store.usageAsync(current.key().keyHash(), plan).toCompletableFuture().join();
        ObjectNode out = JSON.createObjectNode();
        out.put("key_id", id);
        out.put("plan", plan.name());
        ArrayNode policies = out.putArray("policies");
        for (PolicyState s : states) {
            ObjectNode n = policies.addObject();
            n.put("policy", s.policy().name());
            n.put("q", s.policy().quota());
            n.put("used", s.used());
            n.put("remaining", s.remaining());
            n.put("reset_seconds", s.resetSeconds());
            s.resetAt().ifPresent(at -> n.put("reset_at", at.toString()));
        }
        return new Reply(200, out);
    }

    // ---- helpers --------------------------------------------------------------------------------------

    private Map<String, Plan> plans() {
        EdgeRules r = decider.rules();
        return r.config().plans();
    }

    private Plan plan(String name) {
        Plan p = plans().get(name);
        if (p == null) {
            throw new BadRequest(422, "unknown_plan", "plan \"" + name + "\" is not in the configuration (plans: "
                    + String.join(", ", plans().keySet()) + ")");
        }
        return p;
    }

    private static Policy policy(Plan plan, String name) {
        int i = plan.indexOf(name);
        if (i < 0) {
            throw new BadRequest(422, "unknown_policy", "plan " + plan.name() + " has no policy \"" + name + "\"");
        }
        return plan.policy(i);
    }

    private static int q(JsonNode n) {
        return intIn(n, "q", 1, Integer.MAX_VALUE);
    }

    private static int intIn(JsonNode n, String field, int min, int max) {
        if (n == null || !n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < min || n.asInt() > max) {
            throw new BadRequest(400, "invalid_request", field + ": an integer in " + min + ".." + max + ", was "
                    + n);
        }
        return n.asInt();
    }

    /** A delivery destination's name (the delivery worker's rule): 1..100 of letters, digits, {@code . _ -}. */
    private static void checkDestination(String name) {
        if (!name.matches("[A-Za-z0-9._-]{1,100}")) {
            throw new BadRequest(400, "invalid_request", "warning_destination: a delivery destination's name (1..100 "
                    + "of letters, digits, . _ -), was " + name);
        }
    }

    private static Optional<String> text(JsonNode in, String field) {
        JsonNode n = in.get(field);
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw new BadRequest(400, "invalid_request", field + ": a non-empty string, was " + n);
        }
        return Optional.of(n.asText());
    }

    private static JsonNode json(String body) {
        if (body.isBlank()) {
            throw new BadRequest(400, "invalid_request", "a JSON object body is required");
        }
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || !n.isObject()) {
                throw new BadRequest(400, "invalid_request", "a JSON object body is required");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new BadRequest(400, "invalid_request", "not JSON: " + e.getOriginalMessage());
        }
    }

    static ObjectNode record(KeyRecord r) {
        ObjectNode o = JSON.createObjectNode();
        StoredKey k = r.key();
        o.put("key_id", k.keyId());
        o.put("plan", k.plan());
        o.put("renewal_day", k.renewalDay());
        ObjectNode ov = o.putObject("overrides");
        k.quotaOverrides().forEach(ov::put);
        k.warningDestination().ifPresent(u -> o.put("warning_destination", u));
        r.label().ifPresent(l -> o.put("label", l));
        o.put("created_at", r.createdAt().toString());
        r.revokedAt().ifPresent(at -> o.put("revoked_at", at.toString()));
        o.put("status", r.revokedAt().isPresent() ? "revoked" : "active");
        return o;
    }

    private static Reply noKey(String id) {
        return problem(404, "unknown_key", "No key with id " + id + ".");
    }

    static Reply problem(int status, String code, String detail) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "https://sluice.dev/problems/admin/" + code);
        o.put("title", code.replace('_', ' '));
        o.put("status", status);
        o.put("detail", detail);
        return new Reply(status, o);
    }

    /** A request the API refuses, with its status and problem code. */
    static final class BadRequest extends RuntimeException {
        final int status;
        final String code;

        BadRequest(int status, String code, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
        }
    }
}
