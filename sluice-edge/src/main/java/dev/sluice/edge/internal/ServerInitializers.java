package dev.sluice.edge.internal;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import java.util.concurrent.TimeUnit;

/** The child-channel initialisers of the public and the admin listener. */
public final class ServerInitializers {

    private ServerInitializers() {
    }

    /**
     * Public port ({@code open} collects the connections, to close them on shutdown): a connection beyond
     * {@code max-connections-per-ip} of its address is closed at once (and counted); then the idle timeout
     * and protocol detection (HTTP/1.1 or h2c prior knowledge).
     */
    public static ChannelInitializer<Channel> edge(EdgeContext edge, ChannelGroup open) {
        long idleNanos = edge.listen().idleTimeout().toNanos();
        ConnectionsPerAddress perAddress = new ConnectionsPerAddress(edge.listen().maxConnectionsPerIp());
        ConnectionErrors errors = new ConnectionErrors(edge.metrics());
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
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
                ch.pipeline().addLast("detect", new ProtocolDetector(edge));
                ch.pipeline().addLast("errors", errors); // stays last: the protocols' handlers go before it
            }
        };
    }

    /** Admin port: small aggregated HTTP/1.1 requests. */
    public static ChannelInitializer<Channel> admin(PrometheusMeterRegistry registry, DateField dates,
            ChannelGroup open) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                open.add(ch);
                ch.pipeline().addLast(new IdleStateHandler(0, 0, 60, TimeUnit.SECONDS));
                ch.pipeline().addLast(new IdleCloser());
                ch.pipeline().addLast(new HttpServerCodec());
                ch.pipeline().addLast(new HttpObjectAggregator(8 * 1024));
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
