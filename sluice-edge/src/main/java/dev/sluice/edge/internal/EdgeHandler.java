package dev.sluice.edge.internal;

import dev.sluice.edge.decision.BodyTap;
import dev.sluice.edge.decision.Deadlines;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.config.ListenConfig;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.Problems;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection, or one HTTP/2 stream (behind {@code Http2StreamFrameToHttpObjectCodec}):
 * moves bytes between the client and the upstream around the {@link dev.sluice.edge.decision.EdgeDecider},
 * which it calls with the request head only (SPEC §3.1).
 *
 * <p>Per request: reading stops while the decision is pending (body bytes that already arrived wait,
 * bounded by one socket read or one HTTP/2 flow-control window). An answer is written at once; the
 * body of an answered request is never forwarded: on HTTP/1.1 it is read and discarded when at most
 * {@code drain-bound-bytes} remain, otherwise the edge answers with {@code Connection: close}, shuts
 * its output and closes after a short linger; on HTTP/2 the stream is reset with {@code NO_ERROR}
 * after the answer (RFC 9113 §8.1). A forwarded request takes a pooled upstream connection and
 * streams both bodies with backpressure (auto-read follows the other side's writability).
 *
 * <p>Every buffer is released on every path: written (the transport releases it), or released here.
 * Runs on the channel's event loop only; decisions completing elsewhere hop back.
 */
final class EdgeHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeHandler.class);
    /** How long a connection closed after an answer keeps reading (and discarding) before closing. */
    private static final long LINGER_MILLIS = 2_000;
    private static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final String REQUEST_TIMEOUT = "Request-Timeout";

    private enum State { DECIDING, REPLAYING, CONNECTING, FORWARDING, DONE }

    private final EdgeContext edge;
    private final boolean stream;
    /** HTTP/1.1: the deadline of each request head (slowloris); null on an HTTP/2 stream */
    private final RequestHeadDeadline headDeadline;
    private ChannelHandlerContext ctx;
    private Exchange exchange;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    private boolean closing;
    private boolean drainingBacklog;
    private ScheduledFuture<?> lingerTimer;
    private final ChannelFutureListener lingeringClose = this::lingeringClose;
    /** HTTP/2: the connection's bound on streams holding upstream connections; null on HTTP/1.1 */
    private final UpstreamStreamGate gate;
    /** runs while the client takes no response bytes (its channel unwritable): {@code write-timeout} */
    private ScheduledFuture<?> writeTimer;

    /**
     * @param stream true for an HTTP/2 stream channel, false for an HTTP/1.1 connection
     * @param headDeadline the HTTP/1.1 connection's head deadline (before its codec), or null
     * @param gate the HTTP/2 connection's gate of streams holding upstream connections, or null
     */
    EdgeHandler(EdgeContext edge, boolean stream, RequestHeadDeadline headDeadline, UpstreamStreamGate gate) {
        this.edge = edge;
        this.stream = stream;
        this.headDeadline = headDeadline;
        this.gate = gate;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    // ---- inbound from the client -------------------------------------------------------------

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        Exchange ex = exchange;
        if (ex != null && ex.requestComplete && !stream) {
            backlog.add(msg); // a pipelined request: handled when this exchange is over
            updateRead();
            return;
        }
        if (msg instanceof RequestValidator.Refusal r) {
            if (ex == null) {
                if (headDeadline != null) {
                    headDeadline.headReceived();
                }
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
            onContent(content);
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Exchange ex = exchange;
        if (ex != null && ex.upstream != null && ex.upstreamFlushPending) {
            ex.upstreamFlushPending = false;
            ex.upstream.flush();
        }
        ctx.fireChannelReadComplete();
    }

    private void onHead(HttpRequest request, LastHttpContent bundled) {
        if (headDeadline != null) {
            headDeadline.headReceived();
        }
        String path = HttpMessages.path(request.uri()); // normalised by the RequestValidator
        long announced = announcedLength(request);
        boolean bodyExpected = stream ? !(request instanceof FullHttpRequest) : announced != 0;
        long receivedNanos = edge.time().nanoTime();
        RequestHead head = new RequestHead(request.method().name(), path,
                request.headers().getAll(HttpHeaderNames.AUTHORIZATION),
                request.headers().getAll(HttpHeaderNames.CONTENT_LENGTH), bodyExpected, clientAddress(),
                request.headers().getAll(IDEMPOTENCY_KEY), request.headers().getAll(REQUEST_TIMEOUT), receivedNanos,
                HttpMessages.query(request.uri()));
        Exchange ex = new Exchange(request, head, announced, receivedNanos);
        ex.keepAlive = stream || HttpUtil.isKeepAlive(request);
        ex.expectContinue = HttpUtil.is100ContinueExpected(request);
        if (bundled != null) {
            ex.pending.add(bundled);
            ex.bodyBytesSeen = bundled.content().readableBytes();
            ex.requestComplete = true;
        }
        exchange = ex;
        updateRead();
        CompletionStage<Verdict> decision;
        try {
            decision = edge.decider().decide(head);
        } catch (RuntimeException e) {
            decision = CompletableFuture.failedFuture(e);
        }
        decision.whenComplete((verdict, error) -> {
            if (ctx.executor().inEventLoop()) {
                onVerdict(ex, verdict, error);
            } else {
                ctx.executor().execute(() -> onVerdict(ex, verdict, error));
            }
        });
    }

    private void onContent(HttpContent content) {
        Exchange ex = exchange;
        if (ex == null) {
            content.release(); // the rest of a request already answered and forgotten
            return;
        }
        if (content.decoderResult().isFailure()) {
            content.release();
            brokenBody(ex);
            return;
        }
        boolean last = content instanceof LastHttpContent;
        ex.bodyBytesSeen += content.content().readableBytes();
        switch (ex.state) {
            case DECIDING, CONNECTING -> ex.pending.add(content);
            case REPLAYING -> {
                ex.digestBody(content);
                content.release();
                if (last) {
                    ex.requestComplete = true;
                    finishReplay(ex);
                    return;
                }
            }
            case FORWARDING -> {
                if (ex.upstreamReleased) {
                    content.release();
                } else {
                    ex.tapRequest(content);
                    ex.upstream.write(content).addListener(last ? ex.lastWritten : ex.writeFailure);
                    ex.upstreamFlushPending = true;
                    ex.bodyProgress();
                    if (last) {
                        ex.requestSent = true;
                        ex.stopBodyTimer();
                        ex.upstream.flush();
                        ex.upstreamFlushPending = false;
                    }
                }
            }
            case DONE -> content.release();
        }
        if (last) {
            ex.requestComplete = true;
            if (ex.state == State.DONE) {
                finishIfComplete(ex);
            }
        }
        updateRead();
    }

    /**
     * A body the decoder cannot read (a broken chunk, RFC 9112 §7.1): nothing more can be read reliably, so the
     * exchange ends and, when nothing was answered yet, the client gets 400 (with the key's fields once decided)
     * and the connection closes after a linger; an answer already on its way can only be cut. The upstream
     * connection, holding half a request, is discarded; a decision or a pooled connection still coming finds
     * the exchange over.
     */
    private void brokenBody(Exchange ex) {
        if (stream || ex.responseWritten || ex.responseStarted || closing) {
            ctx.close();
            return;
        }
        ex.cancelTimer();
        ex.releaseUpstream(false);
        ex.state = State.DONE;
        ex.releasePending();
        ex.end(false);
        ex.clientGone = true;
        ex.responseWritten = true;
        edge.metrics().rejectedBeforeDecision("malformed_body");
        List<Header> fields = ex.forward == null ? List.of() : ex.forward.responseHeaders();
        FullHttpResponse resp = HttpMessages.toNetty(problems().plain(400, "bad_request", "Bad request",
                "The request body is not valid chunked encoding (RFC 9112 §7.1).").withHeaders(fields),
                edge.dates().now());
        HttpUtil.setKeepAlive(resp, false);
        closing = true;
        releaseBacklog();
        ctx.writeAndFlush(resp).addListener(lingeringClose);
        updateRead();
    }

    // ---- the decision --------------------------------------------------------------------------

    private void onVerdict(Exchange ex, Verdict verdict, Throwable error) {
        if (ex != exchange || ex.clientGone) {
            // the client left while the decision was pending: tell a forward's stages it is over
            // (a concurrency slot, a shedder slot and an idempotency claim are given back)
            if (error == null && verdict instanceof Verdict.Forward f && ex.forward == null) {
                ex.forward = f;
                ex.end(false);
            }
            return;
        }
        if (error != null) {
            LOG.warn("decision failed for {} {}: {}", ex.head.method(), ex.head.path(), error.toString());
            answer(ex, problems().plain(500, "internal_error", "Internal error",
                    "The edge could not decide on this request."));
            return;
        }
        if (!(verdict instanceof Verdict.Replay)) {
            edge.metrics().decision(verdict.record(), edge.time().nanoTime() - ex.startNanos);
            edge.dashboard().decision(verdict.record());
        }
        switch (verdict) {
            case Verdict.Answer a -> answer(ex, a.response());
            case Verdict.Forward f -> {
                f.warnings().forEach(edge.notifier()::offer);
                forward(ex, f);
            }
            case Verdict.Replay r -> replay(ex, r);
        }
    }

    /**
     * A recorded answer waits for the request body's digest (SPEC §3.11): the body is read and hashed,
     * never forwarded; then the replay or the 409 is written.
     */
    private void replay(Exchange ex, Verdict.Replay r) {
        ex.replay = r;
        ex.state = State.REPLAYING;
        ex.bodyDigest = sha256();
        HttpContent c;
        while ((c = ex.pending.poll()) != null) {
            ex.digestBody(c);
            c.release();
        }
        if (ex.requestComplete) {
            finishReplay(ex);
        } else {
            updateRead();
        }
    }

    private void finishReplay(Exchange ex) {
        Verdict.Replay r = ex.replay;
        String digest = HexFormat.of().formatHex(ex.bodyDigest.digest());
        boolean same = digest.equals(r.bodySha256());
        DecisionRecord record = same ? r.record() : r.conflictRecord();
        edge.metrics().decision(record, edge.time().nanoTime() - ex.startNanos);
        edge.dashboard().decision(record);
        answer(ex, same ? r.replay() : r.conflict());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Writes the edge's own response; the request body is never forwarded (SPEC §3.1). */
    private void answer(Exchange ex, EdgeResponse response) {
        ex.state = State.DONE;
        ex.responseWritten = true;
        ex.releasePending();
        FullHttpResponse resp = HttpMessages.toNetty(response, edge.dates().now());
        endResponse(ex, resp, true);
    }

    /**
     * Writes the last part of a response ({@code msg}) and settles the connection or stream: an
     * HTTP/2 stream whose request is still open is reset with NO_ERROR; an HTTP/1.1 connection is kept
     * (draining a small rest of the body) or closed.
     */
    private void endResponse(Exchange ex, Object msg, boolean headIncluded) {
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
        long remaining = ex.announced < 0 ? Long.MAX_VALUE : ex.announced - ex.bodyBytesSeen;
        boolean close = !ex.keepAlive
                || (bodyInFlight && (ex.expectContinue || remaining > edge.listen().drainBoundBytes()));
        if (headIncluded && msg instanceof HttpResponse head) {
            HttpUtil.setKeepAlive(head, !close);
        }
        if (close) {
            closing = true;
            releaseBacklog();
            ctx.writeAndFlush(msg).addListener(bodyInFlight ? lingeringClose : ChannelFutureListener.CLOSE);
            updateRead();
            return;
        }
        ctx.writeAndFlush(msg);
        watchWrites();
        finishIfComplete(ex);
        updateRead();
    }

    private void resetStream(Http2Error error) {
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(error));
        }
    }

    /**
     * After answering a request whose body is still arriving: stop writing, keep reading (and
     * discarding) for a moment so the client can read the answer before the close, then close.
     */
    private void lingeringClose(ChannelFuture written) {
        Channel ch = written.channel();
        if (!written.isSuccess() || !(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        duplex.shutdownOutput();
        lingerTimer = ctx.executor().schedule(() -> {
            ch.close();
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        updateRead();
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
        HttpUtil.setKeepAlive(resp, false);
        closing = true;
        releaseBacklog();
        ctx.writeAndFlush(resp).addListener(lingeringClose);
        updateRead();
    }

    // ---- forwarding ----------------------------------------------------------------------------

    private void forward(Exchange ex, Verdict.Forward verdict) {
        ex.forward = verdict;
        for (ExchangeListener l : verdict.listeners()) {
            if (l instanceof BodyTap tap) {
                if (ex.taps == null) {
                    ex.taps = new ArrayList<>(1);
                }
                ex.taps.add(tap);
            }
        }
        ex.deadlineNanos = Deadlines.deadlineNanos(verdict.request());
        ex.state = State.CONNECTING;
        if (ex.deadlineNanos != Deadlines.NONE) {
            // SPEC §3.9: the answer comes at the deadline, whatever the upstream or the pool is doing then
            long left = ex.deadlineNanos - edge.time().nanoTime();
            ex.deadlineTimer = ctx.executor().schedule(ex::deadlineReached, Math.max(0, left), TimeUnit.NANOSECONDS);
        }
        if (ex.expectContinue && !ex.requestComplete) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        if (gate != null && !gate.enter(ex.gateWaiter)) {
            // as many streams of this connection as it may have hold upstream connections: wait for one, as
            // long as a pooled connection may take
            ex.gateTimer = ctx.executor().schedule(ex::gateTimedOut,
                    edge.pool().config().connectTimeout().toNanos(), TimeUnit.NANOSECONDS);
            return;
        }
        ex.gateHeld = gate != null;
        acquireUpstream(ex);
    }

    private void acquireUpstream(Exchange ex) {
        Future<Channel> acquired = edge.pool().acquire(ctx.channel().eventLoop());
        acquired.addListener(f -> onAcquired(ex, acquired));
    }

    private void onAcquired(Exchange ex, Future<Channel> acquired) {
        if (!acquired.isSuccess()) {
            Throwable cause = acquired.cause();
            boolean timeout = cause instanceof ConnectTimeoutException || cause instanceof TimeoutException;
            ex.upstreamFailed(timeout, cause);
            return;
        }
        Channel up = acquired.getNow();
        if (ex != exchange || ex.clientGone || ex.state != State.CONNECTING) {
            edge.pool().release(up, true);
            return;
        }
        if (ex.deadlineNanos != Deadlines.NONE && edge.time().nanoTime() - ex.deadlineNanos >= 0) {
            // the client's deadline passed while the request waited for a connection: drop it (SPEC §3.9)
            edge.pool().release(up, true);
            deadlinePassed(ex);
            return;
        }
        ex.upstream = up;
        up.pipeline().get(UpstreamHandler.class).attach(ex);
        HttpRequest head = HttpMessages.upstreamRequest(ex.request, ex.head.bodyExpected(),
                edge.pool().config().authority(), ex.head.clientAddress(), trustedPeer(),
                edge.listen().tls().isPresent() ? "https" : "http");
        ex.state = State.FORWARDING;
        up.write(head).addListener(ex.writeFailure);
        HttpContent c;
        while ((c = ex.pending.poll()) != null) {
            ex.tapRequest(c);
            boolean last = c instanceof LastHttpContent;
            up.write(c).addListener(last ? ex.lastWritten : ex.writeFailure);
            if (last) {
                ex.requestSent = true;
            }
        }
        up.flush();
        if (!ex.requestSent) {
            // the response timeout starts once the body is sent; until then the body must keep moving
            ex.startBodyTimer();
        }
        updateRead();
    }

    /** Drops a forwarded request whose client deadline passed before it reached the upstream. */
    private void deadlinePassed(Exchange ex) {
        ex.cancelTimer();
        String route = ex.forward.record().route();
        edge.metrics().dropped(route, "deadline");
        ex.forward.charge().ifPresent(charge -> edge.decider().refund(ex.forward.request(), charge));
        ex.state = State.DONE;
        ex.end(false);
        ex.responseWritten = true;
        ex.releasePending();
        EdgeResponse r = problems().overloaded(java.time.Duration.ofSeconds(1),
                "The request's deadline passed before the API could take it.");
        endResponse(ex, HttpMessages.toNetty(r.withHeaders(ex.forward.responseHeaders()), edge.dates().now()),
                true);
    }

    // ---- connection-level events ---------------------------------------------------------------

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Exchange ex = exchange;
        if (ex != null) {
            syncUpstreamRead(ex);
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
    private void watchWrites() {
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

    /** The upstream is read only while the client can take more (response backpressure). */
    private void syncUpstreamRead(Exchange ex) {
        watchWrites();
        if (ex.upstream != null && !ex.upstreamReleased && !ex.detached && ex.deferredHead == null) {
            boolean read = ctx.channel().isWritable();
            if (ex.upstream.config().isAutoRead() != read) {
                ex.upstream.config().setAutoRead(read);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Exchange ex = exchange;
        if (ex != null && ex.canFinishWithoutClient()) {
            // the whole request reached the upstream and a stage wants its answer (an idempotency record):
            // keep reading it without a client, up to the response timeout
            ex.clientGone = true;
            ex.detached = true;
            ex.releasePending();
            ex.upstream.config().setAutoRead(true);
        } else if (ex != null) {
            ex.clientGone = true;
            ex.releasePending();
            ex.cancelTimer();
            if (ex.upstream != null && !ex.upstreamReleased) {
                ex.releaseUpstream(false);
            }
            ex.end(false);
        }
        exchange = null;
        releaseBacklog();
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
        }
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
            LOG.debug("client connection failed: {}", cause.toString());
        } else {
            LOG.warn("unexpected error on a client {}", stream ? "stream" : "connection", cause);
        }
        ctx.close();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Reads from the client only when the data has somewhere to go. */
    private void updateRead() {
        boolean read;
        Exchange ex = exchange;
        if (closing || ex == null) {
            read = true;
        } else {
            read = switch (ex.state) {
                case DECIDING, CONNECTING -> false;
                case REPLAYING -> !ex.requestComplete;
                case FORWARDING -> !ex.requestComplete && ex.upstream != null && ex.upstream.isWritable();
                case DONE -> !ex.requestComplete;
            };
        }
        if (!stream && ex != null && ex.requestComplete && !closing) {
            read = false; // pipelined requests wait in the socket, not in memory
        }
        if (!stream && !closing && (ex == null || ex.state == State.DONE) && !ctx.channel().isWritable()) {
            read = false; // a client that does not take its answers sends no more requests for now
        }
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    /** An HTTP/1.1 exchange whose request and response are both complete: on to the next request. */
    private void finishIfComplete(Exchange ex) {
        if (stream || closing || ex != exchange || ex.state != State.DONE || !ex.requestComplete
                || !ex.responseWritten) {
            return;
        }
        exchange = null;
        if (headDeadline != null) {
            headDeadline.expectHead();
        }
        if (drainingBacklog) {
            return;
        }
        drainingBacklog = true;
        try {
            while (!backlog.isEmpty() && !closing && (exchange == null || !exchange.requestComplete)) {
                channelRead(ctx, backlog.poll());
            }
        } finally {
            drainingBacklog = false;
        }
        updateRead();
    }

    /** {@code 10 s}, or {@code 300 ms} below a whole second. */
    static String describe(java.time.Duration d) {
        return d.toMillis() % 1_000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private void releaseBacklog() {
        Object o;
        while ((o = backlog.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    /** This exchange's turn at the HTTP/2 connection's gate came (it holds a place from now on). */
    private void onGateOpened(Exchange ex) {
        ex.gateHeld = true;
        if (ex.gateTimer != null) {
            ex.gateTimer.cancel(false);
            ex.gateTimer = null;
        }
        if (ex != exchange || ex.clientGone || ex.state != State.CONNECTING) {
            ex.leaveGate();
            return;
        }
        acquireUpstream(ex);
    }

    private Problems problems() {
        return edge.decider().rules().problems();
    }

    /** Whether the peer is one of {@code listen.trusted-proxies} (its forwarding fields are kept). */
    private boolean trustedPeer() {
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

    /** The announced body length: ≥ 0 from Content-Length, -1 when chunked or unknown. */
    private static long announcedLength(HttpRequest request) {
        if (HttpUtil.isTransferEncodingChunked(request)) {
            return -1;
        }
        String cl = request.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (cl == null) {
            return 0;
        }
        try {
            long v = Long.parseLong(cl.strip());
            return v < 0 ? -1 : v;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** One request/response pair and, once forwarded, its upstream connection. */
    private final class Exchange implements UpstreamHandler.UpstreamListener {
        final HttpRequest request;
        final RequestHead head;
        final long announced;
        final long startNanos;
        final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
        final ChannelFutureListener writeFailure = f -> {
            if (!f.isSuccess()) {
                onUpstreamFailure(f.cause());
            }
        };
        /** the request's last part reached the upstream socket: the response timeout starts now */
        final ChannelFutureListener lastWritten = f -> {
            if (!f.isSuccess()) {
                onUpstreamFailure(f.cause());
            } else {
                startResponseTimer();
            }
        };
        State state = State.DECIDING;
        boolean keepAlive;
        boolean expectContinue;
        boolean requestComplete;
        boolean requestSent;
        long bodyBytesSeen;
        boolean clientGone;
        Verdict.Forward forward;
        Channel upstream;
        boolean upstreamReleased;
        boolean upstreamFlushPending;
        boolean upstreamKeepAlive;
        ScheduledFuture<?> responseTimer;
        /** fires at the request's deadline (client Request-Timeout or route timeout), or null */
        ScheduledFuture<?> deadlineTimer;
        /** a forwarded body that stops moving (SPEC bad input; RFC 9110 §15.5.9), while it is being sent */
        StallTimer bodyTimer;
        boolean responseStarted;
        boolean responseWritten;
        boolean skippingInformational;
        boolean ended;
        /** the stages' body taps, or null when none */
        List<BodyTap> taps;
        /** the client left; the upstream's answer is still read for the taps */
        boolean detached;
        long deadlineNanos = Deadlines.NONE;
        Verdict.Replay replay;
        MessageDigest bodyDigest;
        /** HTTP/2: waits for this connection's gate; then takes an upstream connection */
        final Runnable gateWaiter = () -> onGateOpened(this);
        /** HTTP/2: holds one of the connection's gate places */
        boolean gateHeld;
        /** HTTP/2: bounds the wait for the gate ({@code upstream.connect-timeout}) */
        ScheduledFuture<?> gateTimer;
        /** the min-body-rate check: bytes seen at the window's start; the window saw the upstream not reading */
        ScheduledFuture<?> rateTimer;
        long rateWindowStartBytes;
        boolean upstreamBlockedInWindow;
        /** an upstream 503 head held until its refunded fields are read (a shared store), and its body */
        HttpResponse deferredHead;
        ArrayDeque<HttpContent> deferredContent;

        Exchange(HttpRequest request, RequestHead head, long announced, long startNanos) {
            this.request = request;
            this.head = head;
            this.announced = announced;
            this.startNanos = startNanos;
        }

        boolean canFinishWithoutClient() {
            if (taps == null || state != State.FORWARDING || !requestSent || upstream == null || upstreamReleased) {
                return false;
            }
            for (BodyTap t : taps) {
                if (t.finishWithoutClient()) {
                    return true;
                }
            }
            return false;
        }

        void digestBody(HttpContent c) {
            if (c.content().isReadable()) {
                bodyDigest.update(c.content().nioBuffer());
            }
        }

        /** Shows a request chunk to the taps before it is written (the write releases it). */
        void tapRequest(HttpContent c) {
            if (taps == null) {
                return;
            }
            if (c.content().isReadable()) {
                for (BodyTap t : taps) {
                    ByteBuffer b = c.content().nioBuffer();
                    safely(() -> t.onRequestBody(b));
                }
            }
            if (c instanceof LastHttpContent) {
                for (BodyTap t : taps) {
                    safely(t::onRequestComplete);
                }
            }
        }

        void tapResponse(HttpContent c, boolean last) {
            if (taps == null) {
                return;
            }
            if (c.content().isReadable()) {
                for (BodyTap t : taps) {
                    ByteBuffer b = c.content().nioBuffer();
                    safely(() -> t.onResponseBody(b));
                }
            }
            if (last) {
                for (BodyTap t : taps) {
                    safely(t::onResponseComplete);
                }
            }
        }

        private void safely(Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("body tap failed: {}", e.toString());
            }
        }

        void releasePending() {
            HttpContent c;
            while ((c = pending.poll()) != null) {
                c.release();
            }
            if (deferredContent != null) {
                while ((c = deferredContent.poll()) != null) {
                    c.release();
                }
                deferredContent = null;
                deferredHead = null;
            }
        }

        void cancelTimer() {
            if (responseTimer != null) {
                responseTimer.cancel(false);
                responseTimer = null;
            }
            if (deadlineTimer != null) {
                deadlineTimer.cancel(false);
                deadlineTimer = null;
            }
            stopBodyTimer();
        }

        /**
         * The request's deadline passed (SPEC §3.9). Still waiting for an upstream connection: dropped, 503
         * and refunded. At the upstream without its answer's head: 504 {@code upstream_timeout}, not refunded
         * (the upstream may have carried it out); when a stage wants the answer (an idempotency record) and
         * the whole request was sent, the edge answers the client and closes its side (HTTP/1.1: the
         * connection; HTTP/2: the stream ends), and keeps reading the upstream's answer for the record.
         */
        void deadlineReached() {
            deadlineTimer = null;
            if (this != exchange || clientGone || responseStarted) {
                return;
            }
            if (state == State.CONNECTING) {
                deadlinePassed(this);
                return;
            }
            if (state != State.FORWARDING) {
                return;
            }
            String route = forward.record().route();
            String detail = "The request's deadline passed before the API answered.";
            if (!canFinishWithoutClient()) {
                upstreamFailed(true, new TimeoutException("deadline passed at the upstream"), detail);
                return;
            }
            edge.metrics().upstreamOutcome(route, "timeout");
            cancelTimer();
            startResponseTimer(); // bounds the detached read (it was cancelled with the deadline timer)
            clientGone = true;
            detached = true;
            releasePending();
            upstream.config().setAutoRead(true);
            responseWritten = true;
            keepAlive = false;
            FullHttpResponse resp = HttpMessages.toNetty(problems().plain(504, "upstream_timeout", "Gateway timeout",
                    detail).withHeaders(forward.responseHeaders()), edge.dates().now());
            if (stream) {
                ctx.writeAndFlush(resp);
            } else {
                HttpUtil.setKeepAlive(resp, false);
                closing = true;
                releaseBacklog();
                ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
            }
        }

        /**
         * Starts the upstream's response timeout: the whole request was written to it. An upload that takes
         * longer than the timeout is not cut while it moves.
         */
        void startResponseTimer() {
            if (state != State.FORWARDING || responseStarted || responseTimer != null || upstreamReleased) {
                return;
            }
            long timeoutNanos = edge.pool().config().responseTimeout().toNanos();
            responseTimer = ctx.executor().schedule(this::responseTimedOut, timeoutNanos, TimeUnit.NANOSECONDS);
        }

        void startBodyTimer() {
            if (bodyTimer == null) {
                bodyTimer = new StallTimer(ctx.executor(), edge.listen().bodyIdleTimeout(),
                        () -> bodyStalled("The request body stalled: no byte arrived for "
                                + describe(edge.listen().bodyIdleTimeout()) + "."));
            }
            bodyTimer.start();
            if (edge.listen().minBodyRateBytesPerSecond() > 0 && rateTimer == null) {
                rateWindowStartBytes = bodyBytesSeen;
                upstreamBlockedInWindow = false;
                rateTimer = ctx.executor().schedule(this::checkBodyRate, edge.listen().minBodyRateWindow().toNanos(),
                        TimeUnit.NANOSECONDS);
            }
        }

        /**
         * {@code min-body-rate}: at the end of each window the body must have moved at least rate × window bytes,
         * unless the upstream took no more at some point in it (then the window does not count). A byte now and
         * then, which keeps the idle timer from firing, does not pass this.
         */
        void checkBodyRate() {
            rateTimer = null;
            if (state != State.FORWARDING || requestSent || clientGone || upstreamReleased) {
                return;
            }
            ListenConfig l = edge.listen();
            long window = l.minBodyRateWindow().toMillis();
            long need = l.minBodyRateBytesPerSecond() * window / 1_000;
            long moved = bodyBytesSeen - rateWindowStartBytes;
            if (moved < need && !upstreamBlockedInWindow && upstream.isWritable()) {
                bodyStalled("The request body arrived at " + moved * 1_000 / Math.max(1, window)
                        + " bytes/s, below the " + l.minBodyRateBytesPerSecond() + " bytes/s the edge needs.");
                return;
            }
            rateWindowStartBytes = bodyBytesSeen;
            upstreamBlockedInWindow = !upstream.isWritable();
            rateTimer = ctx.executor().schedule(this::checkBodyRate, l.minBodyRateWindow().toNanos(),
                    TimeUnit.NANOSECONDS);
        }

        void bodyProgress() {
            if (bodyTimer != null) {
                bodyTimer.progress();
            }
        }

        void stopBodyTimer() {
            if (bodyTimer != null) {
                bodyTimer.stop();
            }
            if (rateTimer != null) {
                rateTimer.cancel(false);
                rateTimer = null;
            }
        }

        /**
         * No body byte moved for {@code body-idle-timeout}. When the edge was reading from the client, the
         * client stalled: 408 (RFC 9110 §15.5.9), counted as a client stall, the connection closed; when it
         * was not, because the upstream took no more, the upstream stalled: 504. The upstream connection,
         * which holds half a request, is discarded either way.
         */
        void bodyStalled(String detail) {
            if (state != State.FORWARDING || requestSent || clientGone || upstreamReleased) {
                return;
            }
            if (!upstream.isWritable()) {
                upstreamFailed(true, new TimeoutException("the upstream read no request body byte in "
                        + edge.listen().bodyIdleTimeout()));
                return;
            }
            String route = forward.record().route();
            edge.metrics().clientStall(route);
            LOG.debug("client body stalled for {} on {}", edge.listen().bodyIdleTimeout(), route);
            cancelTimer();
            releaseUpstream(false);
            boolean started = responseStarted;
            state = State.DONE;
            releasePending();
            end(false);
            if (started) {
                cutResponse();
                return;
            }
            keepAlive = false; // RFC 9110 §15.5.9: the server closes after a 408
            responseWritten = true;
            EdgeResponse r = problems().plain(408, "request_timeout", "Request timeout", detail);
            endResponse(this, HttpMessages.toNetty(r.withHeaders(forward.responseHeaders()), edge.dates().now()),
                    true);
        }

        /** Gives the HTTP/2 connection's gate place back (or stops waiting for one). */
        void leaveGate() {
            if (gateTimer != null) {
                gateTimer.cancel(false);
                gateTimer = null;
            }
            if (gate == null) {
                return;
            }
            if (gateHeld) {
                gateHeld = false;
                gate.leave();
            } else {
                gate.cancel(gateWaiter);
            }
        }

        /** Waited for the gate as long as for a pooled connection: 504, as the pool would. */
        void gateTimedOut() {
            gateTimer = null;
            if (!gateHeld && state == State.CONNECTING) {
                upstreamFailed(true, new TimeoutException("waited " + edge.pool().config().connectTimeout()
                        + " for another stream of the connection to free an upstream connection"));
            }
        }

        void releaseUpstream(boolean reusable) {
            leaveGate();
            if (upstream != null && !upstreamReleased) {
                upstreamReleased = true;
                UpstreamHandler h = upstream.pipeline().get(UpstreamHandler.class);
                if (h != null) {
                    h.detach();
                }
                edge.pool().release(upstream, reusable);
            }
        }

        /** Tells the stages' listeners the exchange is over, once. */
        void end(boolean completed) {
            leaveGate();
            if (ended || forward == null) {
                return;
            }
            ended = true;
            for (ExchangeListener l : forward.listeners()) {
                try {
                    l.onEnd(completed);
                } catch (RuntimeException e) {
                    LOG.warn("exchange listener failed: {}", e.toString());
                }
            }
        }

        @Override
        public void onUpstreamHead(HttpResponse response) {
            if ((clientGone && !detached) || state != State.FORWARDING) {
                return;
            }
            if (response.decoderResult().isFailure()) {
                onUpstreamFailure(response.decoderResult().cause());
                return;
            }
            int status = response.status().code();
            if (status < 200) {
                skippingInformational = true; // 1xx: the edge does not relay interim responses
                return;
            }
            cancelTimer();
            responseStarted = true;
            upstreamKeepAlive = HttpUtil.isKeepAlive(response);
            edge.metrics().upstreamStatus(forward.record().route(), status);
            for (ExchangeListener l : forward.listeners()) {
                try {
                    l.onUpstreamResponse(status);
                } catch (RuntimeException e) {
                    LOG.warn("exchange listener failed: {}", e.toString());
                }
            }
            if (taps != null) {
                List<Map.Entry<String, String>> fields = new ArrayList<>(response.headers().size());
                response.headers().forEach(h -> fields.add(new AbstractMap.SimpleImmutableEntry<>(h.getKey(),
                        h.getValue())));
                for (BodyTap t : taps) {
                    safely(() -> t.onResponseHead(status, fields));
                }
            }
            if (detached) {
                return;
            }
            if (status == 503) {
                // the charge was just refunded (SPEC §3.9): the 503 tells what is left after it (SPEC §2.2)
                CompletableFuture<List<Header>> refunded = edge.decider().fieldsAfterRefund(forward)
                        .toCompletableFuture();
                if (refunded.isDone()) {
                    writeHead(response, refunded.join()); // the in-memory store answers at once
                    return;
                }
                // a shared store answers later: hold the head (and any body) until it has
                deferredHead = response;
                deferredContent = new ArrayDeque<>(2);
                upstream.config().setAutoRead(false);
                refunded.whenComplete((fields, error) -> {
                    List<Header> f = fields == null ? forward.responseHeaders() : fields;
                    if (ctx.executor().inEventLoop()) {
                        onRefundedFields(f);
                    } else {
                        ctx.executor().execute(() -> onRefundedFields(f));
                    }
                });
                return;
            }
            writeHead(response, forward.responseHeaders());
        }

        private void writeHead(HttpResponse response, List<Header> fields) {
            ctx.write(HttpMessages.clientResponse(response, fields, keepAlive, stream, edge.dates().now()));
        }

        /** The refunded fields of a held 503 arrived: write its head, then the body that waited. */
        private void onRefundedFields(List<Header> fields) {
            HttpResponse head = deferredHead;
            ArrayDeque<HttpContent> queued = deferredContent;
            if (head == null) {
                return; // the exchange ended meanwhile; what waited was released
            }
            deferredHead = null;
            deferredContent = null;
            writeHead(head, fields);
            HttpContent c;
            while ((c = queued.poll()) != null) {
                onUpstreamContent(c);
            }
            if (state == State.FORWARDING && !clientGone) {
                ctx.flush();
                syncUpstreamRead(this);
            }
        }

        @Override
        public void onUpstreamContent(HttpContent content) {
            if ((clientGone && !detached) || state != State.FORWARDING || (!responseStarted && !skippingInformational)) {
                content.release();
                return;
            }
            boolean last = content instanceof LastHttpContent;
            if (skippingInformational) {
                content.release();
                if (last) {
                    skippingInformational = false;
                }
                return;
            }
            if (deferredHead != null) {
                deferredContent.add(content);
                return;
            }
            tapResponse(content, last);
            if (detached) {
                content.release();
                if (last) {
                    state = State.DONE;
                    releaseUpstream(upstreamKeepAlive);
                    end(false);
                }
                return;
            }
            if (!last) {
                ctx.write(content);
                if (!ctx.channel().isWritable()) {
                    ctx.flush();
                }
                syncUpstreamRead(this);
                return;
            }
            // the response is complete
            state = State.DONE;
            responseWritten = true;
            boolean reusable = requestSent && upstreamKeepAlive;
            releaseUpstream(reusable);
            end(true);
            if (!requestComplete) {
                releasePending();
            }
            endResponse(this, content, false);
        }

        @Override
        public void onUpstreamWritabilityChanged() {
            if (upstream != null && !upstream.isWritable()) {
                upstreamBlockedInWindow = true;
            }
            updateRead();
        }

        @Override
        public void onUpstreamReadComplete() {
            if (responseStarted && state == State.FORWARDING && !clientGone) {
                ctx.flush();
                syncUpstreamRead(this);
            }
        }

        @Override
        public void onUpstreamFailure(Throwable cause) {
            if (detached && !upstreamReleased && state != State.DONE) {
                state = State.DONE;
                cancelTimer();
                releaseUpstream(false);
                end(false);
                return;
            }
            if (upstreamReleased || clientGone || state == State.DONE) {
                return;
            }
            upstreamFailed(false, cause);
        }

        void responseTimedOut() {
            responseTimer = null;
            if (detached && state == State.FORWARDING && !responseStarted) {
                state = State.DONE;
                releaseUpstream(false);
                end(false);
                return;
            }
            if (state == State.FORWARDING && !responseStarted && !clientGone) {
                upstreamFailed(true, new TimeoutException("no response head in "
                        + edge.pool().config().responseTimeout()));
            }
        }

        /** Part of the response is already on its way: the only honest signal left is to cut it. */
        void cutResponse() {
            if (stream) {
                resetStream(Http2Error.INTERNAL_ERROR);
            } else {
                closing = true;
                ctx.flush();
                ctx.close();
            }
        }

        /** The upstream could not be reached, failed, or timed out: 502/504 if nothing was sent yet. */
        void upstreamFailed(boolean timeout, Throwable cause) {
            upstreamFailed(timeout, cause, timeout ? "The API did not answer in time." : "The API could not be reached.");
        }

        void upstreamFailed(boolean timeout, Throwable cause, String detail) {
            if (state == State.DONE || clientGone) {
                return;
            }
            cancelTimer();
            releaseUpstream(false);
            String route = forward.record().route();
            edge.metrics().upstreamOutcome(route, timeout ? "timeout" : "unreachable");
            LOG.debug("upstream failed for {}: {}", route, cause.toString());
            boolean started = responseStarted;
            state = State.DONE;
            releasePending();
            end(false);
            if (started) {
                cutResponse();
                return;
            }
            EdgeResponse r = timeout
                    ? problems().plain(504, "upstream_timeout", "Gateway timeout", detail)
                    : problems().plain(502, "upstream_unavailable", "Bad gateway", detail);
            List<Header> fields = forward.responseHeaders();
            responseWritten = true;
            endResponse(this, HttpMessages.toNetty(r.withHeaders(fields), edge.dates().now()), true);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseBacklog();
        Exchange ex = exchange;
        if (ex != null) {
            ex.releasePending();
            ex.stopBodyTimer();
            ex.leaveGate();
        }
        if (writeTimer != null) {
            writeTimer.cancel(false);
        }
    }
}
