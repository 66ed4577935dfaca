package dev.sluice.edge.internal;

import dev.sluice.edge.config.UpstreamConfig;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * Where a {@link ProxyExchange} takes its upstream connection from and gives it back to: the {@link UpstreamPool}
 * on the edge, a fixed channel in tests. Every acquired connection has an {@link UpstreamHandler} last in its
 * pipeline.
 */
interface Upstreams {

    /** The upstream's settings (authority, connect and response timeouts). */
    UpstreamConfig config();

    /** A connection on {@code loop}; the future completes on that loop. */
    Future<Channel> acquire(EventLoop loop);

    /** Gives {@code channel} back for reuse, or closes it first when {@code reusable} is false. */
    void release(Channel channel, boolean reusable);

    /** The pool's connections. */
    static Upstreams of(UpstreamPool pool) {
        return new Upstreams() {
            @Override
            public UpstreamConfig config() {
                return pool.config();
            }

            @Override
            public Future<Channel> acquire(EventLoop loop) {
                return pool.acquire(loop);
            }

            @Override
            public void release(Channel channel, boolean reusable) {
                pool.release(channel, reusable);
            }
        };
    }
}
