package dev.sluice.edge.internal;

import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.time.TimeSource;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The child-channel initialisers of the public and the admin listener. */
public final class ServerInitializers {

    private static final Logger LOG = LoggerFactory.getLogger(ServerInitializers.class);

    private ServerInitializers() {
    }

    /**
     * The answer to a connection beyond {@code listen.max-connections}, written before the close: the edge's
     * 503 {@code overloaded} ({@link dev.sluice.edge.response.Problems#overloaded}) as HTTP/1.1, since most
     * clients speak it first (an h2c client reads a broken preface and a closed connection, which it retries the
     * same way). Nothing is decided for it.
     */
    static byte[] overCapacity(EdgeContext edge) {
        EdgeResponse r = edge.decider().rules().problems().overloaded(Duration.ofSeconds(1),
                "The edge holds all the connections it may; retry shortly.");
        StringBuilder head = new StringBuilder(256).append("HTTP/1.1 503 Service Unavailable\r\nDate: ")
                .append(edge.dates().now()).append("\r\n");
        for (Header h : r.headers()) {
            head.append(h.name()).append(": ").append(h.value()).append("\r\n");
        }
        head.append("Connection: close\r\nContent-Length: ").append(r.body().length).append("\r\n\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] all = java.util.Arrays.copyOf(h, h.length + r.body().length);
        System.arraycopy(r.body(), 0, all, h.length, r.body().length);
        return all;
    }

    /**
     * Public port ({@code open} collects the connections, to close them on shutdown): a connection beyond
     * {@code max-connections} in all is answered with a fixed 503 and closed, one beyond
     * {@code max-connections-per-ip} of its address is closed at once (both counted, and logged at most once a
     * minute); then the idle timeout, TLS when {@code tls} is given (h2 or http/1.1 offered by ALPN), and
     * protocol detection (HTTP/1.1 or the HTTP/2 preface, which an h2 client sends after ALPN as an h2c one does
     * with prior knowledge).
     */
    public static ChannelInitializer<Channel> edge(EdgeContext edge, ChannelGroup open) {
        return edge(edge, open, null);
    }

    /** {@link #edge(EdgeContext, ChannelGroup)} with TLS, or without when {@code tls} is null. */
    public static ChannelInitializer<Channel> edge(EdgeContext edge, ChannelGroup open, ServerTls tls) {
        long idleNanos = edge.listen().idleTimeout().toNanos();
        ConnectionsPerAddress perAddress = new ConnectionsPerAddress(edge.listen().maxConnectionsPerIp());
        ConnectionErrors errors = new ConnectionErrors(edge.metrics());
        int maxConnections = edge.listen().maxConnections();
        AtomicInteger connections = new AtomicInteger();
        ThrottledLog refusals = new ThrottledLog(LOG, TimeSource.system(), 1);
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (maxConnections > 0) {
                    if (connections.incrementAndGet() > maxConnections) {
                        connections.decrementAndGet();
                        edge.metrics().rejectedConnection("max_connections");
                        refusals.warn("listen.max-connections ({}) reached: new connections get 503 and are closed",
                                maxConnections);
                        ch.writeAndFlush(Unpooled.wrappedBuffer(overCapacity(edge)))
                                .addListener(ChannelFutureListener.CLOSE);
                        return;
                    }
                    ch.closeFuture().addListener(f -> connections.decrementAndGet());
                }
                if (ch.remoteAddress() instanceof InetSocketAddress remote && remote.getAddress() != null) {
                    InetAddress address = remote.getAddress();
                    if (!perAddress.tryOpen(address)) {
                        edge.metrics().rejectedConnection("per_ip_limit");
                        ch.close();
                        return;
                    }
                    ch.closeFuture().addListener(f -> perAddress.closed(address));
                }
                open.add(ch);
                ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, idleNanos, TimeUnit.NANOSECONDS));
                ch.pipeline().addLast("idle-close", new IdleCloser());
                if (tls != null) {
                    ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                }
                ch.pipeline().addLast("detect", new ProtocolDetector(edge));
                ch.pipeline().addLast("errors", errors); // stays last: the protocols' handlers go before it
            }
        };
    }

    /**
     * The public server channel's handler: an accept that fails (the process is out of file descriptors,
     * {@code EMFILE}) is counted ({@code sluice_edge_rejected_connections_total{reason="accept_failed"}}) and
     * logged at most once a minute instead of once per attempt, and accepting pauses for a second, as Netty's
     * own acceptor would (it would also log every failure with its stack trace).
     */
    public static ChannelInboundHandlerAdapter acceptErrors(EdgeContext edge) {
        ThrottledLog log = new ThrottledLog(LOG, TimeSource.system(), 1);
        return new AcceptErrors(edge, log);
    }

    @ChannelHandler.Sharable
    private static final class AcceptErrors extends ChannelInboundHandlerAdapter {
        private final EdgeContext edge;
        private final ThrottledLog log;

        AcceptErrors(EdgeContext edge, ThrottledLog log) {
            this.edge = edge;
            this.log = log;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!(cause instanceof java.io.IOException)) {
                ctx.fireExceptionCaught(cause);
                return;
            }
            edge.metrics().rejectedConnection("accept_failed");
            log.warn(cause, "accepting a connection failed; pausing accepts for 1 s");
            ChannelConfig config = ctx.channel().config();
            if (config.isAutoRead()) {
                config.setAutoRead(false);
                ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), 1, TimeUnit.SECONDS);
            }
        }
    }

    /** Admin port: small aggregated HTTP/1.1 requests. */
    public static ChannelInitializer<Channel> admin(PrometheusMeterRegistry registry, DateField dates,
            ChannelGroup open) {
        return admin(registry, dates, open, null);
    }

    /** Admin port with the key admin API ({@code /admin/v1/...}) before the metrics handler. */
    public static ChannelInitializer<Channel> admin(PrometheusMeterRegistry registry, DateField dates,
            ChannelGroup open, KeyAdminApi keyAdmin) {
        return admin(registry, dates, open, keyAdmin, null);
    }

    /**
     * Admin port with the dashboard ({@code /}, {@code /admin/v1/dashboard}), then the key admin API
     * ({@code /admin/v1/...}), then the metrics handler; a {@code null} part is left out.
     */
    public static ChannelInitializer<Channel> admin(PrometheusMeterRegistry registry, DateField dates,
            ChannelGroup open, KeyAdminApi keyAdmin, DashboardEndpoints dashboard) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                open.add(ch);
                ch.pipeline().addLast(new IdleStateHandler(0, 0, 60, TimeUnit.SECONDS));
                ch.pipeline().addLast(new IdleCloser());
                ch.pipeline().addLast(new HttpServerCodec());
                ch.pipeline().addLast(new HttpObjectAggregator(keyAdmin == null ? 8 * 1024 : 64 * 1024));
                if (dashboard != null) {
                    ch.pipeline().addLast(dashboard.handler(dates));
                }
                if (keyAdmin != null) {
                    ch.pipeline().addLast(keyAdmin.handler(dates));
                }
                ch.pipeline().addLast(new AdminHandler(registry, dates));
            }
        };
    }

    /** Closes a connection without traffic in either direction for the idle timeout. */
    static final class IdleCloser extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent) {
                ctx.close();
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
