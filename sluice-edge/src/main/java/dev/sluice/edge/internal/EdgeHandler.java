package dev.sluice.edge.internal;

import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Problems;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection (behind a {@link KeepAliveHandler}), or one HTTP/2 stream (behind
 * {@code Http2StreamFrameToHttpObjectCodec}): the client side of each request's {@link ProxyExchange}, which it
 * starts on the request head and calls the {@link dev.sluice.edge.decision.EdgeDecider} for, with the head only
 * (SPEC §3.1); the verdict hops back to the channel's event loop.
 *
 * <p>Per request: reading stops while the decision is pending (body bytes that already arrived wait,
 * bounded by one socket read or one HTTP/2 flow-control window). An answer is written at once; the
 * body of an answered request is never forwarded: on HTTP/1.1 the keep-alive handler drains a small rest of it
 * or closes the connection after a linger; on HTTP/2 the stream is reset with {@code NO_ERROR} after the answer
 * (RFC 9113 §8.1). This handler also owns the write timeout (a client that takes no response bytes), answers
 * the {@link RequestValidator}'s refusals and the head deadline's expiry, and cuts a response that cannot be
 * finished.
 *
 * <p>Every buffer is released on every path: written (the transport releases it), handed to the exchange
 * (which owns it from then on), or released here. Runs on the channel's event loop only.
 */
final class EdgeHandler extends ChannelInboundHandlerAdapter implements ProxyExchange.Client {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeHandler.class);

    private final EdgeContext edge;
    private final boolean stream;
    private final Upstreams upstreams;
    private final DecisionHandOff decisions;
    private final ProxyExchange.Observer observer;
    /** the edge's own answers go out as {@link Http1Answer}s, written by the {@link Http1Codec} */
    private final boolean http1Answers;
    private ChannelHandlerContext ctx;
    private ProxyExchange exchange;
    /** nothing more is answered on this connection or stream: what is read is released */
    private boolean closing;
    /** HTTP/2: the connection's bound on streams holding upstream connections; null on HTTP/1.1 */
    private final UpstreamStreamGate gate;
    /** runs while the client takes no response bytes (its channel unwritable): {@code write-timeout} */
    private ScheduledFuture<?> writeTimer;

    /**
     * @param stream true for an HTTP/2 stream channel, false for an HTTP/1.1 connection (behind a
     *     {@link KeepAliveHandler})
     * @param gate the HTTP/2 connection's gate of streams holding upstream connections, or null
     */
    EdgeHandler(EdgeContext edge, boolean stream, UpstreamStreamGate gate) {
        this(edge, stream, gate, Upstreams.of(edge.pool()), edge.decider()::decide, ProxyExchange.Observer.NONE,
                !stream);
    }

    /**
     * With the upstream connections, the decision function and an observer of the exchanges given (tests); the
     * edge's own answers are written as Netty's messages.
     */
    EdgeHandler(EdgeContext edge, boolean stream, UpstreamStreamGate gate, Upstreams upstreams, Function<RequestHead, CompletionStage<Verdict>> decide,
            ProxyExchange.Observer observer) {
        this(edge, stream, gate, upstreams, decide, observer, false);
    }

    /**
     * @param http1Answers whether the edge's own answers go out as {@link Http1Answer}s (an HTTP/1.1 connection
     *     behind an {@link Http1Codec})
     */
    EdgeHandler(EdgeContext edge, boolean stream, UpstreamStreamGate gate, Upstreams upstreams, Function<RequestHead, CompletionStage<Verdict>> decide,
            ProxyExchange.Observer observer, boolean http1Answers) {
        this.http1Answers = http1Answers && !stream;
        this.edge = edge;
        this.stream = stream;
        this.gate = gate;
        this.upstreams = upstreams;
        this.decisions = new DecisionHandOff(decide);
        this.observer = observer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** The exchange under way, or null. */
    ProxyExchange exchange() {
        return exchange;
    }

    // ---- inbound from the client -------------------------------------------------------------

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ProxyExchange ex = exchange;
        if (msg instanceof RequestValidator.Refusal r) {
            if (ex == null) {
                refuseBeforeDecision(r.status(), r.code(), r.title(), r.detail(), r.reason());
            }
            return;
        }
        if (msg instanceof HttpRequest request) {
            if (ex != null) {
                ReferenceCountUtil.release(msg); // cannot happen on a well-formed connection
                return;
            }
            // an HTTP/2 request ended by its HEADERS (or carried whole) arrives as one message
            LastHttpContent bundled = msg instanceof FullHttpRequest full
                    ? new DefaultLastHttpContent(full.content(), full.trailingHeaders()) : null;
            onHead(request, bundled);
            return;
        }
        if (msg instanceof HttpContent content) {
            if (ex == null) {
                content.release(); // the rest of a request already answered and forgotten
                return;
            }
            ex.onContent(content);
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ProxyExchange ex = exchange;
        if (ex != null) {
            ex.flushUpstream();
        }
        ctx.fireChannelReadComplete();
    }

    /** A request head: its exchange starts, reading pauses, and the {@link DecisionHandOff} asks for the verdict. */
    private void onHead(HttpRequest request, LastHttpContent bundled) {
        boolean bodyExpected = stream ? !(request instanceof FullHttpRequest)
                : KeepAliveHandler.announcedLength(request) != 0;
        RequestHead head = DecisionHandOff.head(request, bodyExpected, clientAddress(), edge.time().nanoTime());
        ProxyExchange ex = new ProxyExchange(edge, this, ctx, upstreams, gate, stream, request, head, bundled,
                ProxyExchange.STRICT, observer);
        exchange = ex;
        updateRead();
        decisions.decide(head, ctx.executor(), ex::onVerdict);
    }

    // ---- the client side of an exchange ------------------------------------------------------

    /**
     * Writes the last part of a response ({@code msg}) and settles the connection or stream: an
     * HTTP/2 stream whose request is still open is reset with NO_ERROR; on HTTP/1.1 the {@link KeepAliveHandler}
     * keeps the connection (draining a small rest of the body) or closes it.
     */
    @Override
    public void endResponse(ProxyExchange ex, Object msg, boolean headIncluded) {
        boolean bodyInFlight = !ex.requestComplete;
        if (stream) {
            ChannelFuture written = ctx.writeAndFlush(msg);
            if (bodyInFlight) {
                // reset only once the answer is written: a reset drops DATA still queued by flow control
                written.addListener(f -> resetStream(Http2Error.NO_ERROR));
            }
            if (!written.isDone() && writeTimer == null) {
                // the answer may wait for the client's flow-control window (a small answer leaves the stream
                // channel writable, so no writability change tells): the stream has write-timeout to end
                writeTimer = ctx.executor().schedule(() -> {
                    writeTimer = null;
                    closeUnread();
                }, edge.listen().writeTimeout().toNanos(), TimeUnit.NANOSECONDS);
            }
            // keep reading: a stream closed with auto-read off never drains (and so never releases) the DATA
            // frames Netty queued for it; reading takes and releases them, then the stream channel closes
            updateRead();
            watchWrites();
            return;
        }
        // whether the connection stays is the KeepAliveHandler's to decide; this exchange may only ask for a close
        if (headIncluded && !ex.keepAlive && msg instanceof HttpResponse head) {
            HttpUtil.setKeepAlive(head, false);
        } else if (!ex.keepAlive && msg instanceof Http1Answer answer) {
            msg = answer.closing();
        }
        finishIfComplete(ex); // before the write: a pipelined request waiting for it starts as it is written
        ctx.writeAndFlush(msg);
        watchWrites();
        updateRead();
    }

    /**
     * The edge's own response: on an HTTP/1.1 connection behind an {@link Http1Codec} an {@link Http1Answer},
     * which the codec writes without Netty's header map; otherwise Netty's message.
     */
    @Override
    public Object ownResponse(EdgeResponse response, AsciiString date) {
        return http1Answers ? new Http1Answer(response, date, false) : HttpMessages.toNetty(response, date);
    }

    /** Part of the response is already on its way: the only honest signal left is to cut it. */
    @Override
    public void cutResponse() {
        if (stream) {
            resetStream(Http2Error.INTERNAL_ERROR);
        } else {
            closing = true;
            ctx.flush();
            ctx.close();
        }
    }

    @Override
    public void answerAndClose(FullHttpResponse response) {
        if (stream) {
            ctx.writeAndFlush(response);
            return;
        }
        HttpUtil.setKeepAlive(response, false); // the whole request was read: closed once written
        closing = true;
        ctx.writeAndFlush(response);
    }

    @Override
    public void answerAndLinger(FullHttpResponse response) {
        HttpUtil.setKeepAlive(response, false); // the request's rest is unread: the connection lingers, then closes
        closing = true;
        ctx.writeAndFlush(response);
        updateRead();
    }

    @Override
    public boolean closing() {
        return closing;
    }

    @Override
    public void close() {
        ctx.close();
    }

    private void resetStream(Http2Error error) {
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(error));
        }
    }

    private void refuseBeforeDecision(int status, String code, String title, String detail, String reason) {
        edge.metrics().rejectedBeforeDecision(reason);
        FullHttpResponse resp = HttpMessages.toNetty(problems().plain(status, code, title, detail),
                edge.dates().now());
        if (stream) {
            ctx.writeAndFlush(resp).addListener(f -> resetStream(Http2Error.NO_ERROR));
            exchange = null;
            closing = true; // this stream is over
            updateRead();
            return;
        }
        HttpUtil.setKeepAlive(resp, false); // the KeepAliveHandler closes after a linger
        closing = true;
        ctx.writeAndFlush(resp);
        updateRead();
    }

    // ---- connection-level events ---------------------------------------------------------------

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ProxyExchange ex = exchange;
        if (ex != null) {
            ex.syncUpstreamRead();
        }
        watchWrites();
        updateRead();
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Starts the write timeout when the client's channel is unwritable, stops it when it is writable again.
     * Called on writability changes and after writes: an HTTP/2 stream whose window was 0 from the start is
     * unwritable without ever changing.
     */
    @Override
    public void watchWrites() {
        if (!ctx.channel().isWritable()) {
            if (writeTimer == null && ctx.channel().isActive()) {
                writeTimer = ctx.executor().schedule(this::writeTimedOut, edge.listen().writeTimeout().toNanos(),
                        TimeUnit.NANOSECONDS);
            }
        } else if (writeTimer != null) {
            writeTimer.cancel(false);
            writeTimer = null;
        }
    }

    /**
     * The client took no response byte for {@code write-timeout} (its channel stayed unwritable): it is closed
     * (HTTP/2: the stream is reset with CANCEL), which frees what it held (an upstream connection, a shedder
     * slot), like a client that went away.
     */
    private void writeTimedOut() {
        writeTimer = null;
        if (!ctx.channel().isWritable()) {
            closeUnread();
        }
    }

    private void closeUnread() {
        if (ctx.channel().isActive()) {
            edge.metrics().connectionError("write_timeout");
            LOG.debug("client took no response byte for {}; closing", edge.listen().writeTimeout());
            closing = true;
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ProxyExchange ex = exchange;
        if (ex != null) {
            ex.clientGone();
        }
        exchange = null;
        if (writeTimer != null) {
            writeTimer.cancel(false);
            writeTimer = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == RequestHeadDeadline.EXPIRED) {
            if (exchange == null && !closing) {
                // slowloris: RFC 9110 §15.5.9, the server would not wait longer; the connection closes
                refuseBeforeDecision(408, "request_timeout", "Request timeout", "The request head did not "
                        + "arrive within " + describe(edge.listen().requestHeadTimeout()) + ".",
                        "request_head_timeout");
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String kind = ConnectionErrors.clientCaused(cause);
        if (kind != null) {
            edge.metrics().connectionError(kind);
            LOG.debug("client connection failed", cause);
        } else {
            ConnectionErrors.UNEXPECTED.warn(cause, "unexpected error on a client {}", stream ? "stream" : "connection");
        }
        ctx.close();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Reads from the client only when the data has somewhere to go. */
    @Override
    public void updateRead() {
        ProxyExchange ex = exchange;
        // a complete request is never read on from (ProxyExchange.wantsClientRead): a pipelined one waits in the
        // socket, not in memory
        boolean read = closing || ex == null || ex.wantsClientRead();
        if (!stream && !closing && (ex == null || ex.isDone()) && !ctx.channel().isWritable()) {
            read = false; // a client that does not take its answers sends no more requests for now
        }
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    /** An HTTP/1.1 exchange whose request and response are both complete is over here. */
    @Override
    public void finishIfComplete(ProxyExchange ex) {
        if (!stream && !closing && ex == exchange && ex.isDone() && ex.requestComplete) {
            exchange = null;
        }
    }

    /** {@code 10 s}, or {@code 300 ms} below a whole second. */
    static String describe(java.time.Duration d) {
        return d.toMillis() % 1_000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private Problems problems() {
        return edge.decider().rules().problems();
    }

    /** Whether the peer is one of {@code listen.trusted-proxies} (its forwarding fields are kept). */
    @Override
    public boolean trustedPeer() {
        if (edge.listen().trustedProxies().isEmpty()) {
            return false;
        }
        Channel ch = stream ? ctx.channel().parent() : ctx.channel();
        return ch != null && ch.remoteAddress() instanceof InetSocketAddress inet
                && edge.listen().trustedProxies().contains(inet.getAddress());
    }

    private String clientAddress() {
        SocketAddress a = ctx.channel().remoteAddress();
        if (a instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return "unknown";
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ProxyExchange ex = exchange;
        if (ex != null) {
            ex.dispose();
        }
        if (writeTimer != null) {
            writeTimer.cancel(false);
        }
    }
}
