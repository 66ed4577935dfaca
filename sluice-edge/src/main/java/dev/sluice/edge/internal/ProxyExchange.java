package dev.sluice.edge.internal;

import dev.sluice.edge.config.ListenConfig;
import dev.sluice.edge.decision.BodyTap;
import dev.sluice.edge.decision.Deadlines;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.Problems;
import dev.sluice.time.TimeSource;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.Future;
import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request and its answer, from the decision on its head to the last byte of the response: the body held
 * while the decision is pending, a replay (its {@link ReplayResponder}, SPEC §3.11), and for a forwarded request the upstream
 * leg (the HTTP/2 connection's gate, a pooled connection, both bodies streamed with backpressure, the deadline,
 * body and response timers, the refund of an upstream 503, an answer read on for a stage after the client
 * left). The client side (keep-alive, pipelining, closing) is the {@link Client}'s.
 *
 * <h2>States</h2>
 *
 * <p>Every change of {@link State} goes through one method that looks the pair (state, {@link Event}) up in
 * this table; a pair the table does not hold is a bug: with assertions on (tests) it throws
 * {@link IllegalStateException}, otherwise it is logged and the exchange aborted (upstream connection
 * discarded, client connection or stream closed).
 *
 * <table>
 * <caption>state × event → next state (a blank cell is an illegal transition)</caption>
 * <tr><th></th><th>REPLAY</th><th>FORWARD</th><th>GATE_FULL</th><th>GATE_OPENED</th><th>ATTACHED</th>
 *     <th>HEAD_HELD</th><th>HEAD_WRITTEN</th><th>DETACH</th><th>ANSWERED</th><th>COMPLETED</th><th>CUT</th>
 *     <th>CLIENT_GONE</th></tr>
 * <tr><th>DECIDING</th><td>REPLAYING</td><td>CONNECTING</td><td>GATED</td><td></td><td></td>
 *     <td></td><td></td><td></td><td>DONE</td><td></td><td></td><td>DONE</td></tr>
 * <tr><th>REPLAYING</th><td></td><td></td><td></td><td></td><td></td>
 *     <td></td><td></td><td></td><td>DONE</td><td></td><td></td><td>DONE</td></tr>
 * <tr><th>GATED</th><td></td><td></td><td></td><td>CONNECTING</td><td></td>
 *     <td></td><td></td><td></td><td>DONE</td><td></td><td></td><td>DONE</td></tr>
 * <tr><th>CONNECTING</th><td></td><td></td><td></td><td></td><td>FORWARDING</td>
 *     <td></td><td></td><td></td><td>DONE</td><td></td><td></td><td>DONE</td></tr>
 * <tr><th>FORWARDING</th><td></td><td></td><td></td><td></td><td></td>
 *     <td>HOLDING</td><td>RESPONDING</td><td>DETACHED</td><td>DONE</td><td></td><td></td><td>DONE</td></tr>
 * <tr><th>HOLDING</th><td></td><td></td><td></td><td></td><td></td>
 *     <td></td><td>RESPONDING</td><td>DETACHED</td><td></td><td></td><td>DONE</td><td>DONE</td></tr>
 * <tr><th>RESPONDING</th><td></td><td></td><td></td><td></td><td></td>
 *     <td></td><td></td><td>DETACHED</td><td></td><td>DONE</td><td>DONE</td><td>DONE</td></tr>
 * <tr><th>DETACHED</th><td></td><td></td><td></td><td></td><td></td>
 *     <td></td><td></td><td>DETACHED</td><td></td><td>DONE</td><td>DONE</td><td>DONE</td></tr>
 * <tr><th>DONE</th><td></td><td></td><td></td><td></td><td></td>
 *     <td></td><td></td><td></td><td></td><td></td><td></td><td>DONE</td></tr>
 * </table>
 *
 * <p>{@code ANSWERED} is the edge's own answer (a verdict's, the 500 of a failed decision, a replay or its 409,
 * the 400 of a broken body, the 503 of a deadline passed before the upstream, a 408, 502 or 504 before the
 * upstream's head); {@code CUT} ends a response already begun (HTTP/1.1: the connection closes; HTTP/2: the
 * stream is reset) or a detached read that failed or timed out; {@code CLIENT_GONE} is the client's channel
 * closing when nothing wants the upstream's answer any more ({@code DETACH} otherwise).
 *
 * <p>Besides the state, a few fields are owned by one side each, because the two directions of a forwarded
 * exchange move independently (an upstream may answer before the request body ends): {@code requestComplete}
 * (the client sent the whole request: the client side's keep-alive and pipelining read it),
 * {@code requestSent} (its last part was written upstream: starts the response timeout and makes the upstream
 * connection reusable), {@code upstreamStatus} (the upstream's final status, 0 before its head; a detached read
 * is bounded by the response timeout only before it), {@code heldGate} (the gate place held, given back once)
 * and {@code untold} (the stages' listeners, until they are told how the exchange ended, once).
 *
 * <h2>Buffers</h2>
 *
 * <p>A body part taken by {@link #onContent} or {@link #onUpstreamContent} is owned here: queued (and released
 * by {@link #releasePending()} when the exchange ends), written (the transport releases it) or released at
 * once. Runs on the client channel's event loop only; the upstream connection shares it.
 */
final class ProxyExchange implements UpstreamHandler.UpstreamListener {

    /** Where the exchange is; see the class Javadoc's table. */
    enum State {
        /** the verdict is pending; body parts wait in {@code pending} (reading stopped) */
        DECIDING,
        /** a recorded answer waits for the body's digest */
        REPLAYING,
        /** HTTP/2: waiting for a place at the connection's gate of streams holding upstream connections */
        GATED,
        /** waiting for a pooled upstream connection */
        CONNECTING,
        /** the upstream connection is held and the request goes to it; no response head yet */
        FORWARDING,
        /** the upstream's 503 head waits for its refunded fields (a shared store), its body with it */
        HOLDING,
        /** the response head was written to the client; its body follows */
        RESPONDING,
        /** the client is gone or answered; the upstream's answer is read on for a stage (an idempotency record) */
        DETACHED,
        /** over: the upstream connection was given back and the stages' listeners told */
        DONE
    }

    /** What moves the exchange; see the class Javadoc's table. */
    enum Event {
        REPLAY, FORWARD, GATE_FULL, GATE_OPENED, ATTACHED, HEAD_HELD, HEAD_WRITTEN, DETACH, ANSWERED, COMPLETED, CUT,
        CLIENT_GONE
    }

    /** The client side of the exchange: its connection (HTTP/1.1) or stream (HTTP/2). */
    interface Client {
        /**
         * Writes the last part of a response ({@code msg}, the head too when {@code headIncluded}) and settles
         * the connection or stream for the request's rest.
         */
        void endResponse(ProxyExchange ex, Object msg, boolean headIncluded);

        /**
         * The message that writes the edge's own {@code response} with {@code date} on this connection or stream:
         * Netty's by default; an {@link Http1Answer} on an HTTP/1.1 connection.
         */
        default Object ownResponse(EdgeResponse response, AsciiString date) {
            return HttpMessages.toNetty(response, date);
        }

        /** Ends a response already begun the only honest way left: the stream is reset, the connection closed. */
        void cutResponse();

        /**
         * Writes {@code response} and ends the client's side: the HTTP/2 stream ends with it; the HTTP/1.1
         * connection closes once it is written.
         */
        void answerAndClose(FullHttpResponse response);

        /** Writes {@code response} and closes the HTTP/1.1 connection after a linger (its request's rest unread). */
        void answerAndLinger(FullHttpResponse response);

        /** Whether the client's connection is closing (nothing more is answered on it). */
        boolean closing();

        /** Closes the client's connection or stream now. */
        void close();

        /** Re-reads whether the client's channel should be read (auto-read). */
        void updateRead();

        /** Starts or stops the client's write timeout as its channel is unwritable or writable. */
        void watchWrites();

        /** An HTTP/1.1 exchange may be over: on to the next request. */
        void finishIfComplete(ProxyExchange ex);

        /** Whether the peer is one of {@code listen.trusted-proxies}. */
        boolean trustedPeer();
    }

    /** Sees every transition (tests record them); called after the state changed. */
    interface Observer {
        Observer NONE = (from, event, to) -> { };

        void moved(State from, Event event, State to);
    }

    private static final Logger LOG = LoggerFactory.getLogger(ProxyExchange.class);
    /** Per-request failures (a stage or a listener that throws): a few lines a minute, one stack trace. */
    private static final ThrottledLog FAILURES = new ThrottledLog(LOG, TimeSource.system(), 20);
    /** an illegal transition throws where assertions are on (tests), else it aborts the exchange */
    static final boolean STRICT = ProxyExchange.class.desiredAssertionStatus();
    private static final Map<State, Map<Event, State>> TRANSITIONS = transitions();

    private final EdgeContext edge;
    private final Client client;
    private final ChannelHandlerContext ctx;
    private final Upstreams upstreams;
    /** HTTP/2: the connection's gate of streams holding upstream connections; null on HTTP/1.1 */
    private final UpstreamStreamGate gate;
    private final boolean stream;
    private final boolean strict;
    private final Observer observer;

    final HttpRequest request;
    final RequestHead head;
    final long startNanos;
    private final boolean expectContinue;
    /** the client connection stays open after this exchange (false once a 408 or a deadline answer closes it) */
    boolean keepAlive;
    /** the body parts that arrived while the exchange could not take them yet (deciding, connecting) */
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
    private State state = State.DECIDING;
    /** the client sent the request's last part */
    boolean requestComplete;
    /** body bytes read from the client (the min-body-rate check) */
    private long bodyBytesSeen;
    /** the request's last part was written to the upstream */
    private boolean requestSent;
    /** body parts were written upstream during this read from the client: flush at its end */
    private boolean requestFlushPending;
    Verdict.Forward forward;
    /** the stages' listeners not yet told how the exchange ended; null once told (or before a forward) */
    private List<ExchangeListener> untold;
    /** the stages' body taps, or null when none */
    private List<BodyTap> taps;
    /** the pooled connection while this exchange holds it, else null */
    private Channel upstream;
    /** HTTP/2: the gate whose place this exchange holds, else null */
    private UpstreamStreamGate heldGate;
    /** the upstream's final status once its head arrived; 0 before */
    private int upstreamStatus;
    private boolean upstreamKeepAlive;
    private long deadlineNanos = Deadlines.NONE;
    /** fires at the request's deadline (client Request-Timeout or route timeout), or null */
    private ScheduledFuture<?> deadlineTimer;
    /** the upstream's response timeout, from the request's last byte written to its head */
    private ScheduledFuture<?> responseTimer;
    /** a forwarded body that stops moving (SPEC bad input; RFC 9110 §15.5.9), while it is being sent */
    private StallTimer bodyTimer;
    /** the min-body-rate check: bytes seen at the window's start; the window saw the upstream not reading */
    private ScheduledFuture<?> rateTimer;
    private long rateWindowStartBytes;
    private boolean upstreamBlockedInWindow;
    /** HTTP/2: bounds the wait for the gate ({@code upstream.connect-timeout}) */
    private ScheduledFuture<?> gateTimer;
    private final Runnable gateWaiter = this::onGateOpened;
    /** the recorded answer waiting for the body's digest, while REPLAYING */
    private ReplayResponder replay;
    /** an upstream 503 head held until its refunded fields are read (a shared store), and its body */
    private HttpResponse heldHead;
    private ArrayDeque<HttpContent> heldContent;

    private final ChannelFutureListener writeFailure = f -> {
        if (!f.isSuccess()) {
            onUpstreamFailure(f.cause());
        }
    };
    /** the request's last part reached the upstream socket: the response timeout starts now */
    private final ChannelFutureListener lastWritten = f -> {
        if (!f.isSuccess()) {
            onUpstreamFailure(f.cause());
        } else {
            startResponseTimer();
        }
    };

    /**
     * @param ctx the client channel's context (writes, its event loop)
     * @param gate the HTTP/2 connection's gate, or null on HTTP/1.1
     * @param stream true on an HTTP/2 stream
     * @param bundled the request's whole body when it arrived with the head (HTTP/2), or null; owned from now
     * @param strict whether an illegal transition throws ({@link #STRICT}: with assertions on) rather than
     *     aborting the exchange
     * @param observer told of every transition
     */
    ProxyExchange(EdgeContext edge, Client client, ChannelHandlerContext ctx, Upstreams upstreams,
            UpstreamStreamGate gate, boolean stream, HttpRequest request, RequestHead head, LastHttpContent bundled,
            boolean strict, Observer observer) {
        this.edge = edge;
        this.client = client;
        this.ctx = ctx;
        this.upstreams = upstreams;
        this.gate = gate;
        this.stream = stream;
        this.strict = strict;
        this.observer = observer;
        this.request = request;
        this.head = head;
        this.startNanos = head.receivedNanos();
        this.keepAlive = stream || HttpUtil.isKeepAlive(request);
        this.expectContinue = HttpUtil.is100ContinueExpected(request);
        if (bundled != null) {
            pending.add(bundled);
            bodyBytesSeen = bundled.content().readableBytes();
            requestComplete = true;
        }
    }

    // ---- the state machine -------------------------------------------------------------------

    State state() {
        return state;
    }

    /** The state {@code event} leads to from {@code from}, or null when the table holds no such transition. */
    static State next(State from, Event event) {
        return TRANSITIONS.get(from).get(event);
    }

    /**
     * Moves to the state the table names for {@code event}; false (after aborting) when it names none and
     * assertions are off.
     *
     * @throws IllegalStateException on an illegal transition, when strict (assertions on)
     */
    boolean to(Event event) {
        State nextState = next(state, event);
        if (nextState == null) {
            String message = "illegal exchange transition: " + event + " in " + state + " (" + head.method() + " "
                    + head.path() + ")";
            if (strict) {
                throw new IllegalStateException(message);
            }
            LOG.error("{}; the exchange is aborted", message);
            abort();
            return false;
        }
        State from = state;
        state = nextState;
        observer.moved(from, event, nextState);
        return true;
    }

    private static Map<State, Map<Event, State>> transitions() {
        Map<State, Map<Event, State>> t = new EnumMap<>(State.class);
        for (State s : State.values()) {
            t.put(s, new EnumMap<>(Event.class));
        }
        t.get(State.DECIDING).putAll(Map.of(Event.REPLAY, State.REPLAYING, Event.FORWARD, State.CONNECTING,
                Event.GATE_FULL, State.GATED, Event.ANSWERED, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.REPLAYING).putAll(Map.of(Event.ANSWERED, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.GATED).putAll(Map.of(Event.GATE_OPENED, State.CONNECTING, Event.ANSWERED, State.DONE,
                Event.CLIENT_GONE, State.DONE));
        t.get(State.CONNECTING).putAll(Map.of(Event.ATTACHED, State.FORWARDING, Event.ANSWERED, State.DONE,
                Event.CLIENT_GONE, State.DONE));
        t.get(State.FORWARDING).putAll(Map.of(Event.HEAD_HELD, State.HOLDING, Event.HEAD_WRITTEN, State.RESPONDING,
                Event.DETACH, State.DETACHED, Event.ANSWERED, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.HOLDING).putAll(Map.of(Event.HEAD_WRITTEN, State.RESPONDING, Event.DETACH, State.DETACHED,
                Event.CUT, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.RESPONDING).putAll(Map.of(Event.DETACH, State.DETACHED, Event.COMPLETED, State.DONE,
                Event.CUT, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.DETACHED).putAll(Map.of(Event.DETACH, State.DETACHED, Event.COMPLETED, State.DONE,
                Event.CUT, State.DONE, Event.CLIENT_GONE, State.DONE));
        t.get(State.DONE).put(Event.CLIENT_GONE, State.DONE);
        return t;
    }

    /** An illegal transition (a bug) outside tests: give everything back and close the client's side. */
    private void abort() {
        cancelTimers();
        releaseUpstream(false);
        releasePending();
        state = State.DONE;
        end(false);
        client.close();
    }

    // ---- the request body, from the client ---------------------------------------------------

    /** A body part of this request from the client; owned from now. */
    void onContent(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            content.release();
            brokenBody();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        bodyBytesSeen += content.content().readableBytes();
        switch (state) {
            case DECIDING, GATED, CONNECTING -> pending.add(content);
            case REPLAYING -> {
                replay.take(content);
                if (last) {
                    requestComplete = true;
                    finishReplay();
                    return;
                }
            }
            case FORWARDING, HOLDING, RESPONDING -> sendBody(content, last);
            case DETACHED, DONE -> content.release();
        }
        if (last) {
            requestComplete = true;
            if (state == State.DONE) {
                client.finishIfComplete(this);
            }
        }
        client.updateRead();
    }

    private void sendBody(HttpContent content, boolean last) {
        Channel up = upstream; // a failed write may give it back at once
        tapRequest(content);
        up.write(content).addListener(last ? lastWritten : writeFailure);
        requestFlushPending = true;
        if (bodyTimer != null) {
            bodyTimer.progress();
        }
        if (last) {
            requestSent = true;
            stopBodyTimer();
            up.flush();
            requestFlushPending = false;
        }
    }

    /** The client's read ended: what it brought for the upstream goes out in one flush. */
    void flushUpstream() {
        if (requestFlushPending) {
            requestFlushPending = false;
            if (upstream != null) {
                upstream.flush();
            }
        }
    }

    /** Whether the client's channel should be read for this exchange (its body has somewhere to go). */
    boolean wantsClientRead() {
        return switch (state) {
            case DECIDING, GATED, CONNECTING -> false;
            case FORWARDING, HOLDING, RESPONDING -> !requestComplete && upstream != null && upstream.isWritable();
            case REPLAYING, DETACHED, DONE -> !requestComplete;
        };
    }

    boolean isDone() {
        return state == State.DONE;
    }

    /**
     * A body the decoder cannot read (a broken chunk, RFC 9112 §7.1): nothing more can be read reliably, so the
     * exchange ends and, when nothing was answered yet, the client gets 400 (with the key's fields once decided)
     * and the connection closes after a linger; an answer already on its way can only be cut. The upstream
     * connection, holding half a request, is discarded; a decision or a pooled connection still coming finds
     * the exchange over.
     */
    private void brokenBody() {
        boolean answered = switch (state) {
            case HOLDING, RESPONDING, DETACHED, DONE -> true;
            default -> false;
        };
        if (stream || answered || client.closing()) {
            client.close();
            return;
        }
        cancelTimers();
        releaseUpstream(false);
        if (!to(Event.ANSWERED)) {
            return;
        }
        releasePending();
        end(false);
        edge.metrics().rejectedBeforeDecision("malformed_body");
        List<Header> fields = forward == null ? List.of() : forward.responseHeaders();
        FullHttpResponse resp = HttpMessages.toNetty(problems().plain(400, "bad_request", "Bad request",
                "The request body is not valid chunked encoding (RFC 9112 §7.1).").withHeaders(fields),
                edge.dates().now());
        client.answerAndLinger(resp);
    }

    // ---- the decision ------------------------------------------------------------------------

    /** The decider's verdict on the head (on the client's event loop). */
    void onVerdict(Verdict verdict, Throwable error) {
        if (state != State.DECIDING) {
            // the exchange ended while the decision was pending: tell a forward's stages it is over
            // (a concurrency slot, a shedder slot and an idempotency claim are given back)
            if (error == null && verdict instanceof Verdict.Forward f && forward == null) {
                forward = f;
                untold = f.listeners();
                end(false);
            }
            return;
        }
        if (error != null) {
            FAILURES.warn(error, "decision failed for {} {}", head.method(), head.path());
            answer(problems().plain(500, "internal_error", "Internal error",
                    "The edge could not decide on this request."));
            return;
        }
        if (!(verdict instanceof Verdict.Replay)) {
            edge.metrics().decision(verdict.record(), edge.time().nanoTime() - startNanos);
            edge.dashboard().decision(verdict.record());
        }
        switch (verdict) {
            case Verdict.Answer a -> answer(a.response());
            case Verdict.Forward f -> {
                f.warnings().forEach(edge.notifier()::offer);
                forward(f);
            }
            case Verdict.Replay r -> replay(r);
        }
    }

    /** Writes the edge's own response; the request body is never forwarded (SPEC §3.1). */
    private void answer(EdgeResponse response) {
        if (!to(Event.ANSWERED)) {
            return;
        }
        releasePending();
        client.endResponse(this, client.ownResponse(response, edge.dates().now()), true);
    }

    /**
     * A recorded answer waits for the request body's digest (SPEC §3.11): the body is read and hashed,
     * never forwarded; then the replay or the 409 is written.
     */
    private void replay(Verdict.Replay r) {
        if (!to(Event.REPLAY)) {
            return;
        }
        replay = new ReplayResponder(r);
        HttpContent c;
        while ((c = pending.poll()) != null) {
            replay.take(c);
        }
        if (requestComplete) {
            finishReplay();
        } else {
            client.updateRead();
        }
    }

    private void finishReplay() {
        ReplayResponder.Answer a = replay.finish();
        edge.metrics().decision(a.record(), edge.time().nanoTime() - startNanos);
        edge.dashboard().decision(a.record());
        answer(a.response());
    }

    // ---- forwarding --------------------------------------------------------------------------

    private void forward(Verdict.Forward verdict) {
        forward = verdict;
        untold = verdict.listeners();
        for (ExchangeListener l : verdict.listeners()) {
            if (l instanceof BodyTap tap) {
                if (taps == null) {
                    taps = new ArrayList<>(1);
                }
                taps.add(tap);
            }
        }
        boolean gateFull = gate != null && !gate.enter(gateWaiter);
        if (!gateFull) {
            heldGate = gate;
        }
        if (!to(gateFull ? Event.GATE_FULL : Event.FORWARD)) {
            return;
        }
        deadlineNanos = Deadlines.deadlineNanos(verdict.request());
        if (deadlineNanos != Deadlines.NONE) {
            // SPEC §3.9: the answer comes at the deadline, whatever the upstream or the pool is doing then
            long left = deadlineNanos - edge.time().nanoTime();
            deadlineTimer = ctx.executor().schedule(this::deadlineReached, Math.max(0, left), TimeUnit.NANOSECONDS);
        }
        if (expectContinue && !requestComplete) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        if (gateFull) {
            // as many streams of this connection as it may have hold upstream connections: wait for one, as
            // long as a pooled connection may take
            gateTimer = ctx.executor().schedule(this::gateTimedOut, upstreams.config().connectTimeout().toNanos(),
                    TimeUnit.NANOSECONDS);
            return;
        }
        acquireUpstream();
    }

    /** This exchange's turn at the HTTP/2 connection's gate came (it holds a place from now on). */
    private void onGateOpened() {
        heldGate = gate;
        if (gateTimer != null) {
            gateTimer.cancel(false);
            gateTimer = null;
        }
        if (state != State.GATED) {
            leaveGate();
            return;
        }
        if (to(Event.GATE_OPENED)) {
            acquireUpstream();
        }
    }

    /** Waited for the gate as long as for a pooled connection: 504, as the pool would. */
    private void gateTimedOut() {
        gateTimer = null;
        if (state == State.GATED) {
            upstreamFailed(true, new TimeoutException("waited " + upstreams.config().connectTimeout()
                    + " for another stream of the connection to free an upstream connection"));
        }
    }

    /** Gives the HTTP/2 connection's gate place back (or stops waiting for one). */
    private void leaveGate() {
        if (gateTimer != null) {
            gateTimer.cancel(false);
            gateTimer = null;
        }
        if (gate == null) {
            return;
        }
        if (heldGate != null) {
            heldGate = null;
            gate.leave();
        } else {
            gate.cancel(gateWaiter);
        }
    }

    private void acquireUpstream() {
        Future<Channel> acquired = upstreams.acquire(ctx.channel().eventLoop());
        acquired.addListener(f -> onAcquired(acquired));
    }

    private void onAcquired(Future<Channel> acquired) {
        if (!acquired.isSuccess()) {
            Throwable cause = acquired.cause();
            boolean timeout = cause instanceof ConnectTimeoutException || cause instanceof TimeoutException;
            upstreamFailed(timeout, cause);
            return;
        }
        Channel up = acquired.getNow();
        if (state != State.CONNECTING) {
            upstreams.release(up, true);
            return;
        }
        if (deadlineNanos != Deadlines.NONE && edge.time().nanoTime() - deadlineNanos >= 0) {
            // the client's deadline passed while the request waited for a connection: drop it (SPEC §3.9)
            upstreams.release(up, true);
            deadlinePassed();
            return;
        }
        if (!to(Event.ATTACHED)) {
            upstreams.release(up, true);
            return;
        }
        upstream = up;
        up.pipeline().get(UpstreamHandler.class).attach(this);
        HttpRequest upstreamHead = HttpMessages.upstreamRequest(request, head.bodyExpected(),
                upstreams.config().authority(), head.clientAddress(), client.trustedPeer(),
                edge.listen().tls().isPresent() ? "https" : "http");
        up.write(upstreamHead).addListener(writeFailure);
        HttpContent c;
        while ((c = pending.poll()) != null) {
            tapRequest(c);
            boolean last = c instanceof LastHttpContent;
            up.write(c).addListener(last ? lastWritten : writeFailure);
            if (last) {
                requestSent = true;
            }
        }
        up.flush();
        if (!requestSent && state == State.FORWARDING) {
            // the response timeout starts once the body is sent; until then the body must keep moving
            startBodyTimer();
        }
        client.updateRead();
    }

    /** Drops a forwarded request whose client deadline passed before it reached the upstream. */
    private void deadlinePassed() {
        cancelTimers();
        if (!to(Event.ANSWERED)) {
            return;
        }
        edge.metrics().dropped(forward.record().route(), "deadline");
        forward.charge().ifPresent(charge -> edge.decider().refund(forward.request(), charge));
        end(false);
        releasePending();
        EdgeResponse r = problems().overloaded(java.time.Duration.ofSeconds(1),
                "The request's deadline passed before the API could take it.");
        client.endResponse(this, HttpMessages.toNetty(r.withHeaders(forward.responseHeaders()), edge.dates().now()),
                true);
    }

    /**
     * The request's deadline passed (SPEC §3.9). Still waiting for an upstream connection: dropped, 503
     * and refunded. At the upstream without its answer's head: 504 {@code upstream_timeout}, not refunded
     * (the upstream may have carried it out); when a stage wants the answer (an idempotency record) and
     * the whole request was sent, the edge answers the client and closes its side (HTTP/1.1: the
     * connection; HTTP/2: the stream ends), and keeps reading the upstream's answer for the record.
     */
    private void deadlineReached() {
        deadlineTimer = null;
        switch (state) {
            case GATED, CONNECTING -> deadlinePassed();
            case FORWARDING -> deadlineAtUpstream();
            default -> {
                // answered, answering, or over
            }
        }
    }

    private void deadlineAtUpstream() {
        String detail = "The request's deadline passed before the API answered.";
        if (!canFinishWithoutClient()) {
            upstreamFailed(true, new TimeoutException("deadline passed at the upstream"), detail);
            return;
        }
        edge.metrics().upstreamOutcome(forward.record().route(), "timeout");
        cancelTimers();
        if (!to(Event.DETACH)) {
            return;
        }
        startResponseTimer(); // bounds the detached read (it was cancelled with the deadline timer)
        releasePending();
        upstream.config().setAutoRead(true);
        keepAlive = false;
        client.answerAndClose(HttpMessages.toNetty(problems().plain(504, "upstream_timeout", "Gateway timeout",
                detail).withHeaders(forward.responseHeaders()), edge.dates().now()));
    }

    /** The client's channel closed: the exchange ends, or reads the upstream's answer on for a stage. */
    void clientGone() {
        if (canFinishWithoutClient()) {
            // the whole request reached the upstream and a stage wants its answer (an idempotency record):
            // keep reading it without a client, up to the response timeout
            if (to(Event.DETACH)) {
                releasePending();
                upstream.config().setAutoRead(true);
            }
            return;
        }
        releasePending();
        cancelTimers();
        releaseUpstream(false);
        if (to(Event.CLIENT_GONE)) {
            end(false);
        }
    }

    private boolean canFinishWithoutClient() {
        if (taps == null || !requestSent || upstream == null) {
            return false;
        }
        switch (state) {
            case FORWARDING, HOLDING, RESPONDING, DETACHED -> {
            }
            default -> {
                return false;
            }
        }
        for (BodyTap t : taps) {
            if (t.finishWithoutClient()) {
                return true;
            }
        }
        return false;
    }

    /** The handler leaves the pipeline: nothing held stays behind. */
    void dispose() {
        releasePending();
        stopBodyTimer();
        leaveGate();
    }

    // ---- timers --------------------------------------------------------------------------------

    private void cancelTimers() {
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
     * Starts the upstream's response timeout: the whole request was written to it. An upload that takes
     * longer than the timeout is not cut while it moves.
     */
    private void startResponseTimer() {
        if (upstreamStatus != 0 || responseTimer != null || upstream == null
                || (state != State.FORWARDING && state != State.DETACHED)) {
            return;
        }
        long timeoutNanos = upstreams.config().responseTimeout().toNanos();
        responseTimer = ctx.executor().schedule(this::responseTimedOut, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void responseTimedOut() {
        responseTimer = null;
        if (state == State.DETACHED && upstreamStatus == 0) {
            releaseUpstream(false);
            if (to(Event.CUT)) {
                end(false);
            }
            return;
        }
        if (state == State.FORWARDING) {
            upstreamFailed(true, new TimeoutException("no response head in " + upstreams.config().responseTimeout()));
        }
    }

    private void startBodyTimer() {
        if (bodyTimer == null) {
            bodyTimer = new StallTimer(ctx.executor(), edge.listen().bodyIdleTimeout(),
                    () -> bodyStalled("The request body stalled: no byte arrived for "
                            + EdgeHandler.describe(edge.listen().bodyIdleTimeout()) + "."));
        }
        bodyTimer.start();
        if (edge.listen().minBodyRateBytesPerSecond() > 0 && rateTimer == null) {
            rateWindowStartBytes = bodyBytesSeen;
            upstreamBlockedInWindow = false;
            rateTimer = ctx.executor().schedule(this::checkBodyRate, edge.listen().minBodyRateWindow().toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void stopBodyTimer() {
        if (bodyTimer != null) {
            bodyTimer.stop();
        }
        if (rateTimer != null) {
            rateTimer.cancel(false);
            rateTimer = null;
        }
    }

    /** Whether the request body is on its way to the upstream (the body timers watch it). */
    private boolean sendingBody() {
        return !requestSent && upstream != null
                && (state == State.FORWARDING || state == State.HOLDING || state == State.RESPONDING);
    }

    /**
     * {@code min-body-rate}: at the end of each window the body must have moved at least rate × window bytes,
     * unless the upstream took no more at some point in it (then the window does not count). A byte now and
     * then, which keeps the idle timer from firing, does not pass this.
     */
    private void checkBodyRate() {
        rateTimer = null;
        if (!sendingBody()) {
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

    /**
     * No body byte moved for {@code body-idle-timeout}. When the edge was reading from the client, the
     * client stalled: 408 (RFC 9110 §15.5.9), counted as a client stall, the connection closed; when it
     * was not, because the upstream took no more, the upstream stalled: 504. The upstream connection,
     * which holds half a request, is discarded either way.
     */
    private void bodyStalled(String detail) {
        if (!sendingBody()) {
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
        cancelTimers();
        releaseUpstream(false);
        boolean started = state != State.FORWARDING;
        if (!to(started ? Event.CUT : Event.ANSWERED)) {
            return;
        }
        releasePending();
        end(false);
        if (started) {
            client.cutResponse();
            return;
        }
        keepAlive = false; // RFC 9110 §15.5.9: the server closes after a 408
        EdgeResponse r = problems().plain(408, "request_timeout", "Request timeout", detail);
        client.endResponse(this, HttpMessages.toNetty(r.withHeaders(forward.responseHeaders()), edge.dates().now()),
                true);
    }

    // ---- the upstream's answer ---------------------------------------------------------------

    @Override
    public void onUpstreamHead(HttpResponse response) {
        if (state != State.FORWARDING && !(state == State.DETACHED && upstreamStatus == 0)) {
            return;
        }
        if (response.decoderResult().isFailure()) {
            onUpstreamFailure(response.decoderResult().cause());
            return;
        }
        int status = response.status().code();
        cancelTimers();
        upstreamStatus = status;
        upstreamKeepAlive = HttpUtil.isKeepAlive(response);
        edge.metrics().upstreamStatus(forward.record().route(), status);
        for (ExchangeListener l : forward.listeners()) {
            try {
                l.onUpstreamResponse(status);
            } catch (RuntimeException e) {
                FAILURES.warn(e, "exchange listener failed");
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
        if (state == State.DETACHED) {
            return;
        }
        if (status == 503) {
            // the charge was just refunded (SPEC §3.9): the 503 tells what is left after it (SPEC §2.2)
            CompletableFuture<List<Header>> refunded = edge.decider().fieldsAfterRefund(forward)
                    .toCompletableFuture();
            if (refunded.isDone()) {
                if (to(Event.HEAD_WRITTEN)) {
                    writeHead(response, refunded.join()); // the in-memory store answers at once
                }
                return;
            }
            // a shared store answers later: hold the head (and any body) until it has
            if (!to(Event.HEAD_HELD)) {
                return;
            }
            heldHead = response;
            heldContent = new ArrayDeque<>(2);
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
        if (to(Event.HEAD_WRITTEN)) {
            writeHead(response, forward.responseHeaders());
        }
    }

    private void writeHead(HttpResponse response, List<Header> fields) {
        ctx.write(HttpMessages.clientResponse(response, fields, keepAlive, stream, edge.dates().now()));
    }

    /** The refunded fields of a held 503 arrived: write its head, then the body that waited. */
    private void onRefundedFields(List<Header> fields) {
        if (state != State.HOLDING) {
            return; // the exchange ended or detached meanwhile; what waited was released
        }
        HttpResponse held = heldHead;
        ArrayDeque<HttpContent> queued = heldContent;
        if (!to(Event.HEAD_WRITTEN)) {
            return; // aborted: what waited was released
        }
        heldHead = null;
        heldContent = null;
        writeHead(held, fields);
        HttpContent c;
        while ((c = queued.poll()) != null) {
            onUpstreamContent(c);
        }
        if (state == State.RESPONDING) {
            ctx.flush();
            syncUpstreamRead();
        }
    }

    @Override
    public void onUpstreamContent(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        switch (state) {
            case HOLDING -> heldContent.add(content);
            case RESPONDING -> relay(content, last);
            case DETACHED -> {
                if (upstreamStatus == 0) {
                    content.release();
                    return;
                }
                tapResponse(content, last);
                content.release();
                if (last) {
                    releaseUpstream(upstreamKeepAlive);
                    if (to(Event.COMPLETED)) {
                        end(false);
                    }
                }
            }
            default -> content.release();
        }
    }

    private void relay(HttpContent content, boolean last) {
        tapResponse(content, last);
        if (!last) {
            ctx.write(content);
            if (!ctx.channel().isWritable()) {
                ctx.flush();
            }
            syncUpstreamRead();
            return;
        }
        // the response is complete
        if (!to(Event.COMPLETED)) {
            content.release();
            return;
        }
        releaseUpstream(requestSent && upstreamKeepAlive);
        end(true);
        if (!requestComplete) {
            releasePending();
        }
        client.endResponse(this, content, false);
    }

    @Override
    public void onUpstreamWritabilityChanged() {
        if (upstream != null && !upstream.isWritable()) {
            upstreamBlockedInWindow = true;
        }
        client.updateRead();
    }

    @Override
    public void onUpstreamReadComplete() {
        if (state == State.RESPONDING || state == State.HOLDING) {
            ctx.flush();
            syncUpstreamRead();
        }
    }

    @Override
    public void onUpstreamFailure(Throwable cause) {
        if (state == State.DETACHED) {
            cancelTimers();
            releaseUpstream(false);
            if (to(Event.CUT)) {
                end(false);
            }
            return;
        }
        if (upstream == null) {
            return;
        }
        upstreamFailed(false, cause);
    }

    /** The upstream is read only while the client can take more (response backpressure). */
    void syncUpstreamRead() {
        client.watchWrites();
        if (upstream != null && (state == State.FORWARDING || state == State.RESPONDING)) {
            boolean read = ctx.channel().isWritable();
            if (upstream.config().isAutoRead() != read) {
                upstream.config().setAutoRead(read);
            }
        }
    }

    /** The upstream could not be reached, failed, or timed out: 502/504 if nothing was sent yet. */
    private void upstreamFailed(boolean timeout, Throwable cause) {
        upstreamFailed(timeout, cause, timeout ? "The API did not answer in time." : "The API could not be reached.");
    }

    private void upstreamFailed(boolean timeout, Throwable cause, String detail) {
        switch (state) {
            case GATED, CONNECTING, FORWARDING, HOLDING, RESPONDING -> {
            }
            default -> {
                return; // the exchange is over, or reads on without a client
            }
        }
        cancelTimers();
        releaseUpstream(false);
        String route = forward.record().route();
        edge.metrics().upstreamOutcome(route, timeout ? "timeout" : "unreachable");
        LOG.debug("upstream failed for {}", route, cause);
        boolean started = state == State.HOLDING || state == State.RESPONDING;
        if (!to(started ? Event.CUT : Event.ANSWERED)) {
            return;
        }
        releasePending();
        end(false);
        if (started) {
            client.cutResponse();
            return;
        }
        EdgeResponse r = timeout
                ? problems().plain(504, "upstream_timeout", "Gateway timeout", detail)
                : problems().plain(502, "upstream_unavailable", "Bad gateway", detail);
        client.endResponse(this, HttpMessages.toNetty(r.withHeaders(forward.responseHeaders()), edge.dates().now()),
                true);
    }

    private void releaseUpstream(boolean reusable) {
        leaveGate();
        Channel up = upstream;
        if (up == null) {
            return;
        }
        upstream = null;
        UpstreamHandler h = up.pipeline().get(UpstreamHandler.class);
        if (h != null) {
            h.detach();
        }
        upstreams.release(up, reusable);
    }

    /** Tells the stages' listeners the exchange is over, once. */
    private void end(boolean completed) {
        leaveGate();
        List<ExchangeListener> listeners = untold;
        if (listeners == null) {
            return;
        }
        untold = null;
        for (ExchangeListener l : listeners) {
            try {
                l.onEnd(completed);
            } catch (RuntimeException e) {
                FAILURES.warn(e, "exchange listener failed");
            }
        }
    }

    /** Releases the body parts waiting here (the request's, a held 503's). */
    void releasePending() {
        HttpContent c;
        while ((c = pending.poll()) != null) {
            c.release();
        }
        if (heldContent != null) {
            while ((c = heldContent.poll()) != null) {
                c.release();
            }
            heldContent = null;
            heldHead = null;
        }
    }

    // ---- taps --------------------------------------------------------------------------------

    /** Shows a request chunk to the taps before it is written (the write releases it). */
    private void tapRequest(HttpContent c) {
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

    private void tapResponse(HttpContent c, boolean last) {
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

    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            FAILURES.warn(e, "body tap failed");
        }
    }

    private Problems problems() {
        return edge.decider().rules().problems();
    }
}
