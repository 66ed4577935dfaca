package dev.sluice.edge.internal;

import dev.sluice.edge.config.ListenConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The socket transport: Linux epoll when its native library loads (and the configuration allows),
 * else the JDK's NIO. Immutable.
 *
 * @param name {@code epoll} or {@code nio}
 */
public record Transports(String name, IoHandlerFactory ioHandlerFactory,
        Class<? extends ServerChannel> serverChannel, Class<? extends SocketChannel> socketChannel) {

    /**
     * The transport for {@code choice}.
     *
     * @throws IllegalStateException when epoll is required but cannot load
     */
    public static Transports select(ListenConfig.Transport choice) {
        boolean epoll = switch (choice) {
            case NIO -> false;
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException("listen.transport: epoll is not available here: "
                            + Epoll.unavailabilityCause());
                }
                yield true;
            }
            case AUTO -> Epoll.isAvailable();
        };
        return epoll
                ? new Transports("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                        EpollSocketChannel.class)
                : new Transports("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class,
                        NioSocketChannel.class);
    }

    /** An event-loop group of {@code threads} (0: Netty's default, two per core). */
    public EventLoopGroup newGroup(int threads, String threadPrefix) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadPrefix, true), ioHandlerFactory);
    }
}
