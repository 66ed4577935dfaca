package dev.sluice.edge.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Chooses the protocol of a new connection from its first bytes: the HTTP/2 connection preface
 * ({@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}, RFC 9113 §3.4: h2c with prior knowledge) or anything
 * else (HTTP/1.1). Then it replaces itself with that protocol's handlers; the bytes it looked at are
 * passed on. Both end in an {@link EdgeHandler}, so one HTTP/1-shaped chain serves both protocols.
 */
final class ProtocolDetector extends ByteToMessageDecoder {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final EdgeContext edge;
    /** a prefix of the preface arrived: the rest must follow within the head deadline (slowloris) */
    private ScheduledFuture<?> prefaceDeadline;

    ProtocolDetector(EdgeContext edge) {
        this.edge = edge;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.length);
        int start = in.readerIndex();
        for (int i = 0; i < n; i++) {
            if (in.getByte(start + i) != PREFACE[i]) {
                http1(ctx.pipeline());
                ctx.pipeline().remove(this);
                return;
            }
        }
        if (n == PREFACE.length) {
            http2(ctx.pipeline());
            ctx.pipeline().remove(this);
            return;
        }
        // else: a prefix of the preface so far; wait for more bytes, not longer than a head may take from
        // its first byte (more bytes do not extend it)
        if (prefaceDeadline != null) {
            return;
        }
        prefaceDeadline = ctx.executor().schedule(() -> {
            edge.metrics().rejectedBeforeDecision("request_head_timeout");
            ctx.close();
        }, edge.listen().requestHeadTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (prefaceDeadline != null) {
            prefaceDeadline.cancel(false);
        }
    }

    private void http1(ChannelPipeline p) {
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(edge.listen().maxRequestLineBytes())
                .setMaxHeaderSize(edge.listen().maxHeaderBytes())
                .setMaxChunkSize(16 * 1024);
        RequestHeadDeadline deadline = new RequestHeadDeadline(edge.listen().requestHeadTimeout());
        // the answers to what one socket read brought (pipelined requests) go out in one flush, at the read's
        // end; a flush outside a read (an answer decided later) goes out at once
        p.addAfter(p.context(this).name(), "flush", new FlushConsolidationHandler(
                FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false));
        p.addAfter("flush", "head-deadline", deadline);
        p.addAfter("head-deadline", "http1", new Http1Codec(decoder));
        p.addAfter("http1", "validate", new RequestValidator(edge.listen(), false));
        p.addAfter("validate", "keep-alive", new KeepAliveHandler(edge.listen().drainBoundBytes(), deadline));
        p.addAfter("keep-alive", "edge", new EdgeHandler(edge, false, null));
    }

    private void http2(ChannelPipeline p) {
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(256)
                .maxHeaderListSize(edge.listen().maxHeaderBytes());
        Http2FrameWatch watch = new Http2FrameWatch(edge.listen().requestHeadTimeout(),
                () -> edge.metrics().rejectedBeforeDecision("request_head_timeout"), settings.maxHeaderListSize());
        p.addAfter(p.context(this).name(), "h2-watch", watch);
        p.addAfter("h2-watch", "h2", EdgeHttp2FrameCodec.build(settings, edge, watch));
        UpstreamStreamGate gate = new UpstreamStreamGate(edge.listen().maxUpstreamStreamsPerConnection());
        p.addAfter("h2", "h2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true, true));
                ch.pipeline().addLast(new RequestValidator(edge.listen(), true));
                ch.pipeline().addLast(new EdgeHandler(edge, true, gate));
            }
        }));
    }
}
