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
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.time.TimeSource;
import java.security.cert.X509Certificate;
import java.util.List;
import io.netty.util.NetUtil;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 *
 * <p>An {@code https://} upstream is reached in TLS: the URL's host is sent as SNI (RFC 6066 §3) and, unless
 * {@code verify-certificate: false}, the certificate must chain to the JDK's trusted roots (or to
 * {@code ca-file}'s) and name the host (RFC 9110 §4.3.4; RFC 6125). A failed handshake fails the exchange
 * (502) and is logged at most once a minute.
 */
public final class UpstreamPool implements AutoCloseable {

    /** The most acquisitions waiting for a connection per loop; beyond it acquiring fails at once. */
    static final int MAX_PENDING_ACQUIRES = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamPool.class);

    private final Map<EventExecutor, FixedChannelPool> pools = new IdentityHashMap<>();
    private final UpstreamConfig config;
    private final SslContext tls; // null for http://
    private final ThrottledLog handshakeLog = new ThrottledLog(LOG, TimeSource.system(), 1);

    /**
     * @param address the resolved upstream address
     * @throws IllegalStateException when {@code upstream.ca-file} cannot be read (named in the message)
     */
    public UpstreamPool(EventLoopGroup group, Transports transports, UpstreamConfig config, InetSocketAddress address,
            int loops) {
        this.config = config;
        this.tls = config.tls() ? clientContext(config) : null;
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

    /** The client context of an https:// upstream; the JDK provider (a few connections, reused). */
    static SslContext clientContext(UpstreamConfig config) {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3", "TLSv1.2");
        if (!config.verifyCertificate()) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
        } else {
            b.endpointIdentificationAlgorithm("HTTPS");
            if (config.caFile().isPresent()) {
                try {
                    List<X509Certificate> cas = ServerTls.readCertificates(config.caFile().get(), "upstream.ca-file");
                    b.trustManager(cas);
                } catch (ServerTls.TlsFileException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }
        }
        try {
            return b.build();
        } catch (SSLException e) {
            throw new IllegalStateException("upstream: cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private final class Handler implements ChannelPoolHandler {
        @Override
        public void channelCreated(Channel ch) {
            if (tls != null) {
                SslHandler ssl = tls.newHandler(ch.alloc(), config.host(), config.port());
                ssl.setHandshakeTimeoutMillis(Math.max(1, config.connectTimeout().toMillis()));
                if (!NetUtil.isValidIpV4Address(config.host()) && !NetUtil.isValidIpV6Address(config.host())) {
                    SSLParameters p = ssl.engine().getSSLParameters();
                    p.setServerNames(List.of(new SNIHostName(config.host()))); // RFC 6066 §3: never an address
                    ssl.engine().setSSLParameters(p);
                }
                ch.pipeline().addLast("tls", ssl);
                ch.pipeline().addLast("tls-log", new HandshakeLog());
            }
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

    /** Logs a failed upstream handshake (an untrusted certificate, a wrong host) once a minute at most. */
    private final class HandshakeLog extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent done) {
                if (!done.isSuccess()) {
                    handshakeLog.warn(done.cause(), "upstream {}: TLS handshake failed", config.url());
                }
                ctx.fireUserEventTriggered(evt);
                ctx.pipeline().remove(this);
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
