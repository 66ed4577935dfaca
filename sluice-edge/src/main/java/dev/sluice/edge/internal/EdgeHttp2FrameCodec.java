package dev.sluice.edge.internal;

import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http2.DecoratingHttp2ConnectionEncoder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2LifecycleManager;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Netty's HTTP/2 frame codec, answering a header block over {@code listen.max-header-bytes}
 * ({@code SETTINGS_MAX_HEADER_LIST_SIZE}, RFC 9113 §6.5.2) like the HTTP/1.1 side does: 431 with an RFC 9457
 * problem body, {@code Cache-Control: no-store} and {@code Date}, counted as {@code header_too_large}.
 *
 * <p>Netty refuses such a block in one of two ways, by its size:
 * <ul>
 *   <li>decoded, it is over the limit but its encoded bytes are within 1.25 times it (Netty's
 *       {@code maxHeaderListSizeGoAway}): a stream error. Netty answered a bare {@code :status 431} with no
 *       body and reset the stream; {@link #handleServerHeaderDecodeSizeError} now writes the problem.</li>
 *   <li>its encoded bytes pass 1.25 times the limit while they arrive: Netty stops reading the block and ends
 *       the connection (a connection error, PROTOCOL_ERROR), because the HPACK state can no longer be kept.
 *       Its GOAWAY named the last stream created, which excludes the refused one, so the client read "not
 *       processed, safe to retry" (RFC 9113 §6.8, §8.7: what curl reports as REFUSED_STREAM, and retries).
 *       {@link #onConnectionError} now opens that stream ({@link Http2FrameWatch} knows its id), answers it
 *       with the same 431 and sends a GOAWAY naming it: the client gets a final answer and no invitation to
 *       retry. The connection then reads and drops what the client still sends for a moment before closing,
 *       so the answer is not lost to a reset.</li>
 * </ul>
 * The request never reaches the edge's decision, so nothing is charged and no limiter state is made.
 */
final class EdgeHttp2FrameCodec extends Http2FrameCodec {

    /** How long a connection ended for an oversized block keeps reading before it closes. */
    private static final long LINGER_MILLIS = 2_000;

    private final EdgeContext edge;
    private final Http2FrameWatch watch;

    private EdgeHttp2FrameCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder,
            Http2Settings initialSettings, boolean decoupleCloseAndGoAway, boolean flushPreface, EdgeContext edge,
            Http2FrameWatch watch) {
        super(encoder, decoder, initialSettings, decoupleCloseAndGoAway, flushPreface);
        this.edge = edge;
        this.watch = watch;
    }

    /** A server codec with {@code settings}, answering oversized header blocks with the edge's 431. */
    static Http2FrameCodec build(Http2Settings settings, EdgeContext edge, Http2FrameWatch watch) {
        // Netty's own limit on RST_STREAMs the server sends (against "MadeYouReset", CVE-2025-55163) counts the
        // REFUSED_STREAMs it sends a client that opens more streams than SETTINGS_MAX_CONCURRENT_STREAMS, and
        // would end with GOAWAY ENHANCE_YOUR_CALM a client that opened 1,000 at once: ClientCausedResets instead
        return new Builder(edge, watch).initialSettings(settings).validateHeaders(true)
                .encoderEnforceMaxRstFramesPerWindow(0, 0).build();
    }

    @Override
    protected void handleServerHeaderDecodeSizeError(ChannelHandlerContext ctx, Http2Stream stream) {
        writeTooLarge(ctx, stream);
    }

    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
            Http2Exception http2Ex) {
        int streamId = watch.oversizedHeaderBlockStreamId();
        if (outbound || streamId <= 0 || http2Ex == null || http2Ex.error() != Http2Error.PROTOCOL_ERROR
                || !headerSizeExceeded(http2Ex) || connection().stream(streamId) != null) {
            super.onConnectionError(ctx, outbound, cause, http2Ex);
            return;
        }
        Http2Stream stream;
        try {
            // opened here so that it can be answered, and the GOAWAY can name it as processed
            stream = connection().remote().createStream(streamId, true);
        } catch (Http2Exception e) {
            super.onConnectionError(ctx, outbound, cause, http2Ex); // not an id the client may open
            return;
        }
        watch.discardInbound();
        writeTooLarge(ctx, stream);
        goAway(ctx, streamId, Http2Error.PROTOCOL_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise())
                .addListener((ChannelFutureListener) EdgeHttp2FrameCodec::lingeringClose);
        ctx.flush();
    }

    /**
     * After the last frame: stop writing, keep reading (and dropping) for a moment, so that the client reads
     * the answer before the connection closes; closing with its frames unread would reset the connection.
     */
    private static void lingeringClose(ChannelFuture written) {
        Channel ch = written.channel();
        if (!written.isSuccess() || !(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        duplex.shutdownOutput();
        ch.eventLoop().schedule(() -> {
            ch.close();
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static boolean headerSizeExceeded(Http2Exception e) {
        String m = e.getMessage();
        return m != null && m.toLowerCase(Locale.ROOT).startsWith("header size exceeded");
    }

    private void writeTooLarge(ChannelHandlerContext ctx, Http2Stream stream) {
        edge.metrics().rejectedBeforeDecision("header_too_large");
        EdgeResponse r = edge.decider().rules().problems().plain(431, "request_header_fields_too_large",
                "Request header fields too large", "The request's header section is larger than "
                        + edge.listen().maxHeaderBytes() + " bytes.");
        Http2Headers headers = new DefaultHttp2Headers().status("431");
        headers.add("date", edge.dates().now());
        for (Header h : r.headers()) {
            headers.add(h.name().toLowerCase(Locale.ROOT), h.value());
        }
        headers.addInt("content-length", r.body().length);
        encoder().writeHeaders(ctx, stream.id(), headers, 0, false, ctx.newPromise());
        encoder().writeData(ctx, stream.id(), Unpooled.wrappedBuffer(r.body()), 0, true, ctx.newPromise());
        // out of the flow controller now: Netty resets the stream next, which would drop queued DATA
        flush(ctx);
    }

    private static final class Builder extends Http2FrameCodecBuilder {
        private final EdgeContext edge;
        private final Http2FrameWatch watch;

        Builder(EdgeContext edge, Http2FrameWatch watch) {
            this.edge = edge;
            this.watch = watch;
            server(true);
        }

        @Override
        protected Http2FrameCodec build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                Http2Settings initialSettings) {
            ClientCausedResets limited = new ClientCausedResets(encoder, MAX_CLIENT_CAUSED_RESETS,
                    TimeUnit.SECONDS.toNanos(RESET_WINDOW_SECONDS));
            EdgeHttp2FrameCodec codec = new EdgeHttp2FrameCodec(limited, decoder, initialSettings,
                    decoupleCloseAndGoAway(), flushPreface(), edge, watch);
            limited.lifecycleManager = codec;
            codec.gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis());
            return codec;
        }
    }

    /** Netty's server default: 200 RST_STREAMs sent per 30 s. */
    static final int MAX_CLIENT_CAUSED_RESETS = 200;
    static final int RESET_WINDOW_SECONDS = 30;

    /**
     * Ends a connection (GOAWAY {@code ENHANCE_YOUR_CALM}) whose client made the edge send more than
     * {@value #MAX_CLIENT_CAUSED_RESETS} RST_STREAMs for its errors within {@value #RESET_WINDOW_SECONDS} s (a
     * "MadeYouReset" flood: frames that are stream errors). Not counted: the resets that are the edge's own
     * choice, not a client's error: {@code NO_ERROR} (an answer sent, the body not wanted), {@code CANCEL},
     * {@code INTERNAL_ERROR} (an upstream failed mid-answer) and {@code REFUSED_STREAM} (a stream over
     * {@code SETTINGS_MAX_CONCURRENT_STREAMS}, refused unprocessed: RFC 9113 §5.1.2 lets the client retry it).
     * Event-loop only.
     */
    static final class ClientCausedResets extends DecoratingHttp2ConnectionEncoder {
        private final int max;
        private final long windowNanos;
        private long windowStartNanos;
        private int inWindow;
        Http2LifecycleManager lifecycleManager;

        ClientCausedResets(Http2ConnectionEncoder delegate, int max, long windowNanos) {
            super(delegate);
            this.max = max;
            this.windowNanos = windowNanos;
        }

        static boolean counted(long errorCode) {
            return errorCode != Http2Error.NO_ERROR.code() && errorCode != Http2Error.CANCEL.code()
                    && errorCode != Http2Error.INTERNAL_ERROR.code() && errorCode != Http2Error.REFUSED_STREAM.code();
        }

        @Override
        public ChannelFuture writeRstStream(ChannelHandlerContext ctx, int streamId, long errorCode,
                ChannelPromise promise) {
            ChannelFuture f = super.writeRstStream(ctx, streamId, errorCode, promise);
            if (!counted(errorCode)) {
                return f;
            }
            long now = System.nanoTime();
            if (inWindow == 0 || now - windowStartNanos >= windowNanos) {
                windowStartNanos = now;
                inWindow = 1;
                return f;
            }
            if (++inWindow > max && lifecycleManager != null) {
                lifecycleManager.onError(ctx, true, Http2Exception.connectionError(Http2Error.ENHANCE_YOUR_CALM,
                        "more than %d RST_STREAM frames for client errors within %d s", max, RESET_WINDOW_SECONDS));
                ctx.close();
            }
            return f;
        }
    }
}
