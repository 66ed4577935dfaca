package dev.sluice.edge.internal;

import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.time.TimeSource;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import javax.net.ssl.SSLException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a client connection's pipeline: an exception no handler before it took (a connection
 * reset before the protocol was known, an HTTP/2 connection error Netty's codec reports after answering it
 * with GOAWAY, such as a rapid-reset flood) ends here instead of reaching Netty's pipeline tail, which logs a
 * warning with a stack trace for each. What a client causes is counted
 * ({@code sluice_edge_connection_errors_total{kind}}) and logged at debug, one line; anything else is a bug
 * of the edge, logged as a warning with its stack trace. The connection is closed, except after an HTTP/2
 * error, which the codec is already ending with a GOAWAY. Stateless: one instance serves every connection.
 */
@ChannelHandler.Sharable
final class ConnectionErrors extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionErrors.class);
    /**
     * Errors no client should be able to cause (an edge bug): each names its throwable, the first of a minute
     * with its stack trace, at most 20 lines a minute, since a bug may repeat on every connection.
     */
    static final ThrottledLog UNEXPECTED = new ThrottledLog(LOG, TimeSource.system(), 20);

    private final EdgeMetrics metrics;

    ConnectionErrors(EdgeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String kind = clientCaused(cause);
        if (kind != null) {
            metrics.connectionError(kind);
            if (LOG.isDebugEnabled()) {
                LOG.debug("client connection {} failed", ctx.channel().remoteAddress(), cause);
            }
        } else {
            UNEXPECTED.warn(cause, "unexpected error on client connection {}", ctx.channel().remoteAddress());
        }
        if (!(cause instanceof Http2Exception)) {
            ctx.close();
        }
    }

    /**
     * The metric kind of an error a client (or its network) causes: {@code io} (reset, broken pipe),
     * {@code http2_<error>} (an HTTP/2 connection or stream error, e.g. {@code http2_enhance_your_calm}),
     * {@code tls} (a failed handshake, bytes that are not TLS on an HTTPS listener), {@code decoder} (bytes no
     * codec can read); {@code null} for anything else.
     */
    static String clientCaused(Throwable cause) {
        if (cause instanceof SSLException || cause.getCause() instanceof SSLException
                || cause instanceof NotSslRecordException || cause.getCause() instanceof NotSslRecordException) {
            return "tls"; // a failed handshake, plain HTTP on the HTTPS port, a bad record
        }
        if (cause instanceof IOException) {
            return "io";
        }
        if (cause instanceof Http2Exception h2) {
            return "http2_" + h2.error().name().toLowerCase(Locale.ROOT);
        }
        if (cause instanceof DecoderException d) {
            return d.getCause() instanceof Http2Exception h2 ? "http2_" + h2.error().name().toLowerCase(Locale.ROOT)
                    : "decoder";
        }
        return null;
    }
}
