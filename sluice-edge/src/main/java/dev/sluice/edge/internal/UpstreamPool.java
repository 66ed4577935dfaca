package dev.sluice.edge.internal;

import dev.sluice.edge.config.UpstreamConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.ChannelPoolHandler;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Kept-alive HTTP/1.1 connections to the upstream, bounded: one {@link FixedChannelPool} per event
 * loop, so a client connection and its upstream connection share one thread (no hand-off, no locks),
 * each holding at most {@code ceil(pool-size / loops)} connections. Waiting for a connection is
 * bounded by the connect timeout.
 *
 * <p>The upstream address is resolved once, before the edge starts, so no DNS lookup ever runs on an
 * event loop.
 */
public final class UpstreamPool implements AutoCloseable {

    /** The most acquisitions waiting for a connection per loop; beyond it acquiring fails at once. */
    static final int MAX_PENDING_ACQUIRES = 10_000;

    private final Map<EventExecutor, FixedChannelPool> pools = new IdentityHashMap<>();
    private final UpstreamConfig config;

    /**
     * @param address the resolved upstream address
     */
    public UpstreamPool(EventLoopGroup group, Transports transports, UpstreamConfig config, InetSocketAddress address,
            int loops) {
        this.config = config;
        int perLoop = Math.max(1, (config.poolSize() + loops - 1) / loops);
        long connectMillis = Math.max(1, config.connectTimeout().toMillis());
        for (EventExecutor executor : group) {
            EventLoop loop = (EventLoop) executor;
            Bootstrap b = new Bootstrap().group(loop).channel(transports.socketChannel()).remoteAddress(address)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectMillis))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
            FixedChannelPool pool = new FixedChannelPool(b, new Handler(), ChannelHealthChecker.ACTIVE,
                    FixedChannelPool.AcquireTimeoutAction.FAIL, connectMillis, perLoop, MAX_PENDING_ACQUIRES,
                    true, true);
            pools.put(loop, pool);
        }
    }

    public UpstreamConfig config() {
        return config;
    }

    /** A connection on {@code loop}'s pool; the future completes on that loop. */
    public Future<Channel> acquire(EventLoop loop) {
        return pools.get(loop).acquire(loop.newPromise());
    }

    /**
     * Gives {@code channel} back for reuse, or closes it first when it cannot be reused (the exchange
     * failed, or the upstream asked to close).
     */
    public void release(Channel channel, boolean reusable) {
        FixedChannelPool pool = pools.get(channel.eventLoop());
        if (!reusable) {
            channel.close();
        }
        pool.release(channel);
    }

    /** Closes every pooled connection; blocks until done, so call it off the event loops. */
    @Override
    public void close() {
        pools.values().forEach(FixedChannelPool::close);
    }

    private static final class Handler implements ChannelPoolHandler {
        @Override
        public void channelCreated(Channel ch) {
            ch.pipeline().addLast("http", new HttpClientCodec(4096, 16 * 1024, 8192, true));
            ch.pipeline().addLast("upstream", new UpstreamHandler());
        }

        @Override
        public void channelAcquired(Channel ch) {
            ch.config().setAutoRead(true);
        }

        @Override
        public void channelReleased(Channel ch) {
            UpstreamHandler h = ch.pipeline().get(UpstreamHandler.class);
            if (h != null) {
                h.detach();
            }
            ch.config().setAutoRead(true); // notice when the upstream closes an idle connection
        }
    }
}
