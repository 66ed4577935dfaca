package dev.sluice.edge.internal;

import dev.sluice.edge.config.AdminConfig;
import dev.sluice.edge.dashboard.Dashboard;
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
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The admin port's live dashboard: {@code GET /} is one self-contained HTML page (inline CSS and script, no
 * other request but its data), {@code GET /admin/v1/dashboard} the JSON it polls every second
 * ({@link Dashboard#snapshot()}).
 *
 * <p>The data is under the admin API's access rule ({@link AdminAccess}: the bearer token when
 * {@code admin.token} is set, else a loopback-bound port only). The page itself holds no data and is served
 * to whoever reaches the port, as {@code /metrics} is: a browser cannot attach a header to a navigation, so
 * the page asks for the token and sends it as {@code Authorization: Bearer} on each poll (kept in the tab's
 * {@code sessionStorage}: never in a URL, where it would reach access logs and history, and never a cookie).
 * Polling, not server-sent events, for that reason: {@code EventSource} cannot send a header. The page's
 * {@code Content-Security-Policy} allows its own inline script and style (by SHA-256) and requests to this
 * origin only.
 */
public final class DashboardEndpoints {

    /** The JSON snapshot's path. */
    public static final String SNAPSHOT_PATH = "/admin/v1/dashboard";

    private static final String PAGE_RESOURCE = "/dev/sluice/edge/dashboard/dashboard.html";

    private final Dashboard dashboard;
    private final AdminAccess access;
    private final byte[] page;
    private final String contentSecurityPolicy;

    /**
     * @param dashboard what the page shows
     * @param admin the admin section (its token and host decide who may read the data)
     * @throws IllegalStateException if the page is missing from the jar
     */
    public DashboardEndpoints(Dashboard dashboard, AdminConfig admin) {
        this.dashboard = dashboard;
        this.access = new AdminAccess(admin);
        this.page = resource();
        String html = new String(page, StandardCharsets.UTF_8);
        this.contentSecurityPolicy = "default-src 'none'; script-src " + hashes(html, "script") + "; style-src "
                + hashes(html, "style") + "; connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                + "form-action 'none'; frame-ancestors 'none'";
    }

    /** A pipeline handler for one admin connection; other paths pass on to the next handler. */
    public SimpleChannelInboundHandler<FullHttpRequest> handler(DateField dates) {
        return new Handler(dates);
    }

    private static byte[] resource() {
        try (InputStream in = DashboardEndpoints.class.getResourceAsStream(PAGE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard page " + PAGE_RESOURCE + " is not on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The CSP sources ({@code 'sha256-…'}) of every inline {@code <tag>} element of {@code html}. */
    private static String hashes(String html, String tag) {
        Matcher m = Pattern.compile("<" + tag + ">(.*?)</" + tag + ">", Pattern.DOTALL).matcher(html);
        List<String> sources = new ArrayList<>();
        while (m.find()) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(m.group(1).getBytes(StandardCharsets.UTF_8));
                sources.add("'sha256-" + Base64.getEncoder().encodeToString(digest) + "'");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
        return sources.isEmpty() ? "'none'" : String.join(" ", sources);
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final DateField dates;

        Handler(DateField dates) {
            super(false);
            this.dates = dates;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = HttpMessages.path(req.uri());
            boolean isPage = path.equals("/");
            if (!isPage && !path.equals(SNAPSHOT_PATH)) {
                ctx.fireChannelRead(req); // the next handler releases it
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            FullHttpResponse resp;
            try {
                resp = answer(req, isPage);
            } finally {
                req.release();
            }
            resp.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            resp.headers().set("X-Content-Type-Options", "nosniff");
            resp.headers().set(HttpHeaderNames.DATE, dates.now());
            HttpUtil.setKeepAlive(resp, keepAlive);
            if (keepAlive) {
                ctx.writeAndFlush(resp);
            } else {
                ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private FullHttpResponse answer(FullHttpRequest req, boolean isPage) {
            boolean head = req.method().equals(HttpMethod.HEAD);
            if (!head && !req.method().equals(HttpMethod.GET)) {
                FullHttpResponse r = json(KeyAdminApi.problem(405, "method_not_allowed", "GET only."), false);
                r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
                return r;
            }
            if (isPage) {
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(page));
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
                r.headers().set(HttpHeaderNames.CONTENT_LENGTH, page.length);
                r.headers().set(HttpHeaderNames.CONTENT_SECURITY_POLICY, contentSecurityPolicy);
                r.headers().set("Referrer-Policy", "no-referrer");
                return r;
            }
            KeyAdminApi.Reply denied = access.check(req);
            if (denied != null) {
                FullHttpResponse r = json(denied, head);
                if (denied.status() == 401) {
                    r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"sluice-admin\"");
                }
                return r;
            }
            return json(new KeyAdminApi.Reply(200, dashboard.snapshot()), head);
        }

        private FullHttpResponse json(KeyAdminApi.Reply reply, boolean head) {
            byte[] bytes = reply.body().toString().getBytes(StandardCharsets.UTF_8);
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(reply.status()), head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.status() >= 400 ? "application/problem+json"
                    : "application/json");
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            return r;
        }

    }
}
