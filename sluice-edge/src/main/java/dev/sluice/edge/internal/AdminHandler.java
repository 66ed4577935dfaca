package dev.sluice.edge.internal;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import java.nio.charset.StandardCharsets;

/**
 * The admin port (SPEC §3.13): {@code GET /metrics} in Prometheus text format, {@code GET /healthz}.
 * Anything else is 404. Requests are small and aggregated; the scrape is CPU work only.
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final PrometheusMeterRegistry registry;
    private final DateField dates;

    AdminHandler(PrometheusMeterRegistry registry, DateField dates) {
        this.registry = registry;
        this.dates = dates;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        String path = HttpMessages.path(req.uri());
        FullHttpResponse resp;
        if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
            resp = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET only\n", "text/plain; charset=utf-8");
        } else if (path.equals("/metrics")) {
            resp = text(HttpResponseStatus.OK, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8");
        } else if (path.equals("/healthz")) {
            resp = text(HttpResponseStatus.OK, "ok\n", "text/plain; charset=utf-8");
        } else {
            resp = text(HttpResponseStatus.NOT_FOUND, "not found\n", "text/plain; charset=utf-8");
        }
        resp.headers().set(HttpHeaderNames.DATE, dates.now());
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        HttpUtil.setKeepAlive(resp, keepAlive);
        if (keepAlive) {
            ctx.writeAndFlush(resp);
        } else {
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body, String type) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return r;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
