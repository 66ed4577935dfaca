package dev.sluice.edge.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 keep-alive, pipelining and linger-close for one connection, between the {@link RequestValidator} and
 * the {@link EdgeHandler}; the part of Netty's {@code HttpServerKeepAliveHandler} the edge needs, plus what an
 * answer before the end of its request's body needs (SPEC §3.1: the body of an answered request is never
 * forwarded).
 *
 * <p>It watches the requests going in and the responses going out. When a response's last part is written it
 * decides whether the connection stays: not when the request or the response says {@code Connection: close}
 * (RFC 9112 §9.6), nor when the request's body is still arriving and more than {@code drain-bound-bytes} of it
 * remain (or its length is unknown, or it waits for {@code 100 Continue}). A kept connection reads the rest of
 * that body (the edge handler releases it) and goes on; a closed one has {@code Connection: close} set on an
 * answer written whole, and closes when the response is written, or, when the request's body is still
 * arriving, shuts its output and reads (and releases) for {@link #LINGER} before closing, so that the client
 * reads the answer instead of a reset.
 *
 * <p>A request that arrives whole while the previous response is still being written (pipelining, RFC 9112
 * §9.3) waits here, in order, with what follows it, until that response is written; the edge handler's
 * auto-read keeps the rest in the socket meanwhile. It also tells the {@link RequestHeadDeadline} when a head
 * arrived and when the next one is awaited.
 *
 * <p>Buffers: a message waiting here is released if the connection closes first; everything read after the
 * decision to close is released. Event-loop only.
 */
final class KeepAliveHandler extends ChannelDuplexHandler {

    /** How long a connection closed after an answer keeps reading (and discarding) before closing. */
    static final Duration LINGER = Duration.ofSeconds(2);

    /** Where the connection is between its requests and responses. */
    enum Phase {
        /** no request under way: the next message starts one */
        IDLE,
        /** a request head was passed on; neither the end of its body nor of its response was seen */
        READING,
        /** the request is complete, its response is not: what arrives waits in the backlog */
        AWAITING,
        /** the response is written, the rest of the request's body is read and released downstream */
        DRAINING,
        /** the connection closes: everything read is released */
        CLOSING
    }

    private final long drainBoundBytes;
    /** the connection's head deadline, or null */
    private final RequestHeadDeadline headDeadline;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    private Phase phase = Phase.IDLE;
    private boolean requestKeepAlive = true;
    private boolean expectContinue;
    /** the request's announced body length: ≥ 0 from Content-Length, -1 when chunked or unknown */
    private long announcedBytes;
    private long bodyBytes;
    /** the response's head asked for the connection to close */
    private boolean responseCloses;
    /** the backlog is being replayed (a replayed request may be answered inline, ending here again) */
    private boolean replaying;
    private ScheduledFuture<?> lingerTimer;

    /**
     * @param drainBoundBytes the most body bytes still to come that are read and dropped to keep the connection
     * @param headDeadline the connection's head deadline, or null
     */
    KeepAliveHandler(long drainBoundBytes, RequestHeadDeadline headDeadline) {
        this.drainBoundBytes = drainBoundBytes;
        this.headDeadline = headDeadline;
    }

    Phase phase() {
        return phase;
    }

    // ---- requests in -------------------------------------------------------------------------

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (phase) {
            case CLOSING -> ReferenceCountUtil.release(msg);
            case AWAITING -> backlog.add(msg); // pipelined: taken up once the response is written
            case IDLE -> {
                if (msg instanceof HttpRequest request) {
                    start(request);
                } else if (msg instanceof RequestValidator.Refusal) {
                    startRefused();
                }
                pass(ctx, msg);
            }
            case READING, DRAINING -> pass(ctx, msg);
        }
    }

    private void start(HttpRequest request) {
        phase = Phase.READING;
        requestKeepAlive = HttpUtil.isKeepAlive(request);
        expectContinue = HttpUtil.is100ContinueExpected(request);
        announcedBytes = announcedLength(request);
        bodyBytes = 0;
        responseCloses = false;
        if (headDeadline != null) {
            headDeadline.headReceived();
        }
    }

    /** A refused request: answered and closed; its body (if any) is never complete. */
    private void startRefused() {
        phase = Phase.READING;
        requestKeepAlive = false;
        expectContinue = false;
        announcedBytes = -1;
        bodyBytes = 0;
        responseCloses = false;
        if (headDeadline != null) {
            headDeadline.headReceived();
        }
    }

    /** Passes {@code msg} on, then notes the end of the request's body (a broken one never ends). */
    private void pass(ChannelHandlerContext ctx, Object msg) {
        boolean end = msg instanceof LastHttpContent last && last.decoderResult().isSuccess();
        if (msg instanceof HttpContent c && phase != Phase.IDLE) {
            bodyBytes += c.content().readableBytes();
        }
        ctx.fireChannelRead(msg);
        if (!end) {
            return;
        }
        if (phase == Phase.READING) {
            phase = Phase.AWAITING;
        } else if (phase == Phase.DRAINING) {
            nextRequest(ctx);
        }
    }

    // ---- responses out -------------------------------------------------------------------------

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof Http1Answer answer) {
            responseCloses = answer.close();
        } else if (msg instanceof HttpResponse response) {
            if (response.status().code() < 200) {
                ctx.write(msg, promise); // 100 Continue: the request goes on
                return;
            }
            responseCloses = !HttpUtil.isKeepAlive(response);
        }
        if (!(msg instanceof LastHttpContent || msg instanceof Http1Answer) || phase == Phase.CLOSING) {
            ctx.write(msg, promise);
            return;
        }
        // the response's last part: does the connection stay?
        boolean bodyInFlight = phase != Phase.AWAITING;
        long remaining = announcedBytes < 0 ? Long.MAX_VALUE : announcedBytes - bodyBytes;
        boolean close = !requestKeepAlive || responseCloses
                || (bodyInFlight && (expectContinue || remaining > drainBoundBytes));
        if (msg instanceof HttpResponse whole) {
            HttpUtil.setKeepAlive(whole, !close);
        } else if (close && msg instanceof Http1Answer answer) {
            msg = answer.closing();
        }
        if (close) {
            phase = Phase.CLOSING;
            releaseBacklog();
            ChannelPromise p = promise.unvoid();
            ctx.write(msg, p);
            p.addListener(bodyInFlight ? (ChannelFutureListener) f -> linger(ctx, f) : ChannelFutureListener.CLOSE);
            return;
        }
        ctx.write(msg, promise);
        if (bodyInFlight) {
            phase = Phase.DRAINING;
        } else {
            nextRequest(ctx);
        }
    }

    /** The exchange is over: the next head is awaited, and requests that waited are taken up in order. */
    private void nextRequest(ChannelHandlerContext ctx) {
        phase = Phase.IDLE;
        if (headDeadline != null) {
            headDeadline.expectHead();
        }
        if (replaying) {
            return; // the outer replay goes on
        }
        replaying = true;
        try {
            Object next;
            while ((phase == Phase.IDLE || phase == Phase.READING || phase == Phase.DRAINING)
                    && (next = backlog.poll()) != null) {
                channelRead(ctx, next);
            }
        } finally {
            replaying = false;
        }
    }

    /**
     * After answering a request whose body is still arriving: stop writing, keep reading (and releasing) for
     * {@link #LINGER} so the client can read the answer before the close, then close.
     */
    private void linger(ChannelHandlerContext ctx, ChannelFuture written) {
        Channel ch = written.channel();
        if (!written.isSuccess() || !(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        duplex.shutdownOutput();
        lingerTimer = ctx.executor().schedule(() -> {
            ch.close();
        }, LINGER.toNanos(), TimeUnit.NANOSECONDS);
        ch.config().setAutoRead(true);
    }

    private void releaseBacklog() {
        Object o;
        while ((o = backlog.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        phase = Phase.CLOSING;
        releaseBacklog();
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseBacklog();
    }

    /** The announced body length: ≥ 0 from Content-Length, -1 when chunked or unknown. */
    static long announcedLength(HttpRequest request) {
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
}
