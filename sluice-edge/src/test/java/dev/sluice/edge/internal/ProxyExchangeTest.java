package dev.sluice.edge.internal;

import static dev.sluice.edge.internal.ExchangeRig.last;
import static dev.sluice.edge.internal.ExchangeRig.part;
import static dev.sluice.edge.internal.ExchangeRig.post;
import static dev.sluice.edge.internal.ProxyExchange.Event.ANSWERED;
import static dev.sluice.edge.internal.ProxyExchange.Event.ATTACHED;
import static dev.sluice.edge.internal.ProxyExchange.Event.CLIENT_GONE;
import static dev.sluice.edge.internal.ProxyExchange.Event.COMPLETED;
import static dev.sluice.edge.internal.ProxyExchange.Event.CUT;
import static dev.sluice.edge.internal.ProxyExchange.Event.DETACH;
import static dev.sluice.edge.internal.ProxyExchange.Event.FORWARD;
import static dev.sluice.edge.internal.ProxyExchange.Event.GATE_FULL;
import static dev.sluice.edge.internal.ProxyExchange.Event.GATE_OPENED;
import static dev.sluice.edge.internal.ProxyExchange.Event.HEAD_HELD;
import static dev.sluice.edge.internal.ProxyExchange.Event.HEAD_WRITTEN;
import static dev.sluice.edge.internal.ProxyExchange.Event.REPLAY;
import static dev.sluice.edge.internal.ProxyExchange.State.CONNECTING;
import static dev.sluice.edge.internal.ProxyExchange.State.DECIDING;
import static dev.sluice.edge.internal.ProxyExchange.State.DETACHED;
import static dev.sluice.edge.internal.ProxyExchange.State.DONE;
import static dev.sluice.edge.internal.ProxyExchange.State.FORWARDING;
import static dev.sluice.edge.internal.ProxyExchange.State.GATED;
import static dev.sluice.edge.internal.ProxyExchange.State.HOLDING;
import static dev.sluice.edge.internal.ProxyExchange.State.REPLAYING;
import static dev.sluice.edge.internal.ProxyExchange.State.RESPONDING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.decision.BodyTap;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.internal.ExchangeRig.Move;
import dev.sluice.edge.internal.ProxyExchange.Event;
import dev.sluice.edge.internal.ProxyExchange.State;
import dev.sluice.edge.response.EdgeResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link ProxyExchange}'s state machine: the transition table as its Javadoc writes it, every legal transition
 * taken by a real exchange (an {@link EdgeHandler} in an {@link EmbeddedChannel}, see {@link ExchangeRig}) with
 * what the client and the upstream see, and illegal transitions refused.
 */
class ProxyExchangeTest {

    /** The table of the class Javadoc, written out again: state → (event → next state). */
    private static final Map<State, Map<Event, State>> TABLE = new EnumMap<>(State.class);

    static {
        for (State s : State.values()) {
            TABLE.put(s, new EnumMap<>(Event.class));
        }
        TABLE.get(DECIDING).putAll(Map.of(REPLAY, REPLAYING, FORWARD, CONNECTING, GATE_FULL, GATED, ANSWERED, DONE,
                CLIENT_GONE, DONE));
        TABLE.get(REPLAYING).putAll(Map.of(ANSWERED, DONE, CLIENT_GONE, DONE));
        TABLE.get(GATED).putAll(Map.of(GATE_OPENED, CONNECTING, ANSWERED, DONE, CLIENT_GONE, DONE));
        TABLE.get(CONNECTING).putAll(Map.of(ATTACHED, FORWARDING, ANSWERED, DONE, CLIENT_GONE, DONE));
        TABLE.get(FORWARDING).putAll(Map.of(HEAD_HELD, HOLDING, HEAD_WRITTEN, RESPONDING, DETACH, DETACHED,
                ANSWERED, DONE, CLIENT_GONE, DONE));
        TABLE.get(HOLDING).putAll(Map.of(HEAD_WRITTEN, RESPONDING, DETACH, DETACHED, CUT, DONE, CLIENT_GONE, DONE));
        TABLE.get(RESPONDING).putAll(Map.of(DETACH, DETACHED, COMPLETED, DONE, CUT, DONE, CLIENT_GONE, DONE));
        TABLE.get(DETACHED).putAll(Map.of(DETACH, DETACHED, COMPLETED, DONE, CUT, DONE, CLIENT_GONE, DONE));
        TABLE.get(DONE).put(CLIENT_GONE, DONE);
    }

    // ---- the table -------------------------------------------------------------------------------

    @Test
    void theTableIsTheDocumentedOneAndEverythingElseIsIllegal() {
        int legal = 0;
        for (State s : State.values()) {
            for (Event e : Event.values()) {
                assertThat(ProxyExchange.next(s, e)).as("%s × %s", s, e).isEqualTo(TABLE.get(s).get(e));
                legal += TABLE.get(s).containsKey(e) ? 1 : 0;
            }
        }
        assertThat(legal).isEqualTo(31);
    }

    @Test
    void anIllegalTransitionThrowsWithAssertionsOnAndChangesNothing() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(2), part("ab"));
            ProxyExchange ex = rig.exchange();
            assertThatThrownBy(() -> ex.to(COMPLETED)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("COMPLETED in DECIDING");
            assertThatThrownBy(() -> ex.to(ATTACHED)).isInstanceOf(IllegalStateException.class);
            assertThat(ex.state()).isEqualTo(DECIDING);
            assertThat(rig.moves).isEmpty();
        }
    }

    @Test
    void anIllegalTransitionInProductionAbortsTheExchangeAndClosesTheClient() {
        try (ExchangeRig rig = new ExchangeRig()) {
            ByteBuf body = Unpooled.copiedBuffer("ab", StandardCharsets.US_ASCII);
            HttpRequest request = post(2);
            ProxyExchange ex = new ProxyExchange(rig.edge, rig.handler, rig.client.pipeline().context(rig.handler),
                    null, null, false, request, RequestHead.of("POST", "/v1/labels", null, "192.0.2.7"),
                    new io.netty.handler.codec.http.DefaultLastHttpContent(body), false, ProxyExchange.Observer.NONE);
            assertThat(ex.to(Event.HEAD_WRITTEN)).isFalse();
            assertThat(ex.state()).isEqualTo(DONE);
            assertThat(body.refCnt()).as("the body waiting in the exchange is released").isZero();
            assertThat(rig.client.isOpen()).isFalse();
        }
    }

    // ---- every legal transition, taken by a real exchange ---------------------------------------------

    @Test
    void everyLegalTransitionIsTakenByTheScenarios() {
        Set<String> taken = new HashSet<>();
        for (Supplier<List<Move>> scenario : scenarios().values()) {
            for (Move m : scenario.get()) {
                taken.add(m.from() + " " + m.event());
            }
        }
        Set<String> legal = new HashSet<>();
        TABLE.forEach((s, row) -> row.keySet().forEach(e -> legal.add(s + " " + e)));
        assertThat(taken).isEqualTo(legal);
    }

    /** Each scenario by name; each returns the transitions its exchanges took. */
    private Map<String, Supplier<List<Move>>> scenarios() {
        Map<String, Supplier<List<Move>>> all = new LinkedHashMap<>();
        all.put("anAnswerIsWrittenAtOnce", this::anAnswerIsWrittenAtOnce);
        all.put("aClientGoneWhileDecidingFreesTheForwardsStages", this::aClientGoneWhileDecidingFreesTheForwardsStages);
        all.put("aReplayDigestsTheBodyThenAnswers", this::aReplayDigestsTheBodyThenAnswers);
        all.put("aReplayWhoseClientLeavesEnds", this::aReplayWhoseClientLeavesEnds);
        all.put("aForwardedRequestIsRelayedAndItsConnectionReused", this::aForwardedRequestIsRelayedAndItsConnectionReused);
        all.put("aFailedConnectIs502AndATimedOutOne504", this::aFailedConnectIs502AndATimedOutOne504);
        all.put("aConnectionArrivingAfterTheClientLeftGoesBackToThePool", this::aConnectionArrivingAfterTheClientLeftGoesBackToThePool);
        all.put("anHttp2StreamWaitsAtAFullGateThenForwards", this::anHttp2StreamWaitsAtAFullGateThenForwards);
        all.put("aGateWaitLongerThanConnectTimeoutIs504", this::aGateWaitLongerThanConnectTimeoutIs504);
        all.put("aStreamThatLeavesWhileGatedStopsWaiting", this::aStreamThatLeavesWhileGatedStopsWaiting);
        all.put("anUpstream503WaitsForItsRefundedFields", this::anUpstream503WaitsForItsRefundedFields);
        all.put("aHeld503WhoseClientLeavesIsReadOnForTheStage", this::aHeld503WhoseClientLeavesIsReadOnForTheStage);
        all.put("aHeld503WhoseUpstreamFailsIsCut", this::aHeld503WhoseUpstreamFailsIsCut);
        all.put("aHeld503WhoseClientLeavesWithoutStageIsDropped", this::aHeld503WhoseClientLeavesWithoutStageIsDropped);
        all.put("aSilentUpstreamIs504AfterResponseTimeout", this::aSilentUpstreamIs504AfterResponseTimeout);
        all.put("aStalledBodyIs408", this::aStalledBodyIs408);
        all.put("aClientLeavingWhileForwardingDiscardsTheConnection", this::aClientLeavingWhileForwardingDiscardsTheConnection);
        all.put("aClientLeavingAfterItsWholeRequestIsReadOnForTheStage", this::aClientLeavingAfterItsWholeRequestIsReadOnForTheStage);
        all.put("aDeadlineAtTheUpstreamAnswers504AndReadsOn", this::aDeadlineAtTheUpstreamAnswers504AndReadsOn);
        all.put("aDetachedReadThatFailsIsCut", this::aDetachedReadThatFailsIsCut);
        all.put("aDetachedStreamNobodyWantsAnyMoreEnds", this::aDetachedStreamNobodyWantsAnyMoreEnds);
        all.put("aClientLeavingMidResponseIsReadOnForTheStage", this::aClientLeavingMidResponseIsReadOnForTheStage);
        all.put("anUpstreamFailingMidResponseCutsIt", this::anUpstreamFailingMidResponseCutsIt);
        all.put("aClientLeavingMidResponseDiscardsTheConnection", this::aClientLeavingMidResponseDiscardsTheConnection);
        all.put("aFinishedStreamClosing", this::aFinishedStreamClosing);
        return all;
    }

    @TestFactory
    Stream<DynamicTest> eachScenario() {
        return scenarios().entrySet().stream().map(s -> DynamicTest.dynamicTest(s.getKey(), () -> s.getValue().get()));
    }

    private static BodyTap recordingTap(List<String> seen, boolean[] wantsAnswer) {
        return new BodyTap() {
            @Override
            public void onRequestBody(ByteBuffer chunk) {
                seen.add("request " + StandardCharsets.UTF_8.decode(chunk));
            }

            @Override
            public void onResponseHead(int status, List<Map.Entry<String, String>> fields) {
                seen.add("head " + status);
            }

            @Override
            public void onResponseBody(ByteBuffer chunk) {
                seen.add("response " + StandardCharsets.UTF_8.decode(chunk));
            }

            @Override
            public void onResponseComplete() {
                seen.add("response complete");
            }

            @Override
            public void onEnd(boolean completed) {
                seen.add("end " + completed);
            }

            @Override
            public boolean finishWithoutClient() {
                return wantsAnswer[0];
            }
        };
    }

    private static HttpResponse upstreamHead(int status, int contentLength) {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, contentLength);
        return r;
    }

    private static String text(HttpContent c) {
        return c.content().toString(StandardCharsets.UTF_8);
    }

    /** Reads the client's next outbound message, checks its type and releases it. */
    private static <T> T out(EmbeddedChannel ch, Class<T> type) {
        Object o = ch.readOutbound();
        assertThat(o).isInstanceOf(type);
        ReferenceCountUtil.release(o);
        return type.cast(o);
    }

    private static List<String> drain(EmbeddedChannel up) {
        List<String> seen = new ArrayList<>();
        Object o;
        while ((o = up.readOutbound()) != null) {
            if (o instanceof HttpRequest r) {
                seen.add(r.method() + " " + r.uri());
            }
            if (o instanceof HttpContent c) {
                seen.add((c instanceof LastHttpContent ? "last " : "part ") + text(c));
            }
            ReferenceCountUtil.release(o);
        }
        return seen;
    }

    private static List<Move> moves(Object... triples) {
        List<Move> m = new ArrayList<>();
        for (int i = 0; i < triples.length; i += 3) {
            m.add(new Move((State) triples[i], (Event) triples[i + 1], (State) triples[i + 2]));
        }
        return m;
    }

    /** Forwarded, connected, the whole request ({@code abc}) sent: FORWARDING. */
    private static EmbeddedChannel forwarding(ExchangeRig rig, BodyTap tap) {
        rig.send(post(3), last("abc"));
        rig.decide(v -> tap == null ? v : ((Verdict.Forward) v).withListener(tap));
        EmbeddedChannel up = rig.connect();
        assertThat(drain(up)).containsExactly("POST /v1/labels", "last abc");
        assertThat(rig.state()).isEqualTo(FORWARDING);
        return up;
    }

    private List<Move> anAnswerIsWrittenAtOnce() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(ExchangeRig.request(HttpMethod.POST, "/v1/labels", null, 0), LastHttpContent.EMPTY_LAST_CONTENT);
            rig.decide();
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(401); // no key
            assertThat(rig.exchange()).as("on to the next request").isNull();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aClientGoneWhileDecidingFreesTheForwardsStages() {
        try (ExchangeRig rig = new ExchangeRig()) {
            HttpContent body = part("ab");
            rig.send(post(4), body);
            rig.client.close();
            assertThat(body.refCnt()).isZero();
            List<String> seen = new ArrayList<>();
            rig.decide(v -> ((Verdict.Forward) v).withListener(recordingTap(seen, new boolean[1])));
            assertThat(seen).containsExactly("end false");
            assertThat(rig.acquires).as("no upstream connection taken").isEmpty();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private static Verdict.Replay replayOf(String body) {
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(body.getBytes(StandardCharsets.UTF_8)));
            DecisionRecord replayed = new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.REPLAYED, false);
            DecisionRecord conflict = new DecisionRecord("POST /v1/labels", "free",
                    DecisionOutcome.IDEMPOTENCY_CONFLICT, false);
            return new Verdict.Replay(digest, new EdgeResponse(201, List.of(), "{\"id\":1}".getBytes(
                    StandardCharsets.UTF_8)), replayed, new EdgeResponse(409, List.of(), new byte[0]), conflict);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private List<Move> aReplayDigestsTheBodyThenAnswers() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(5), part("ab"));
            rig.decide(replayOf("abcde"));
            assertThat(rig.state()).isEqualTo(REPLAYING);
            assertThat((Object) rig.client.readOutbound()).as("nothing before the digest").isNull();
            rig.send(last("cde"));
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(201);
            // another body: 409 (SPEC §3.11)
            rig.send(post(3), last("xyz"));
            rig.decide(replayOf("abc"));
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(409);
            assertThat(rig.moves).isEqualTo(moves(DECIDING, REPLAY, REPLAYING, REPLAYING, ANSWERED, DONE,
                    DECIDING, REPLAY, REPLAYING, REPLAYING, ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aReplayWhoseClientLeavesEnds() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(5));
            rig.decide(replayOf("abcde"));
            HttpContent body = part("ab");
            rig.send(body);
            assertThat(body.refCnt()).isZero();
            rig.client.close();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, REPLAY, REPLAYING, REPLAYING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private List<Move> aForwardedRequestIsRelayedAndItsConnectionReused() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(5), part("ab"));
            rig.decide();
            assertThat(rig.state()).isEqualTo(CONNECTING);
            rig.send(last("cde")); // waits with the first part
            EmbeddedChannel up = rig.connect();
            assertThat(drain(up)).containsExactly("POST /v1/labels", "part ab", "last cde");
            up.writeInbound(upstreamHead(200, 2));
            HttpResponse head = out(rig.client, HttpResponse.class);
            assertThat(head.status().code()).isEqualTo(200);
            assertThat(head.headers().get("RateLimit-Policy")).as("the key's fields").isNotNull();
            up.writeInbound(last("ok"));
            LastHttpContent end = (LastHttpContent) rig.client.readOutbound();
            assertThat(text(end)).isEqualTo("ok");
            end.release();
            assertThat(rig.released).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(true));
            assertThat(rig.exchange()).isNull();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, FORWARD, CONNECTING, CONNECTING, ATTACHED, FORWARDING,
                    FORWARDING, HEAD_WRITTEN, RESPONDING, RESPONDING, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aFailedConnectIs502AndATimedOutOne504() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(0), LastHttpContent.EMPTY_LAST_CONTENT);
            rig.decide();
            rig.failConnect(new ConnectException("Connection refused"));
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(502);
            rig.send(post(0), LastHttpContent.EMPTY_LAST_CONTENT);
            rig.decide();
            rig.failConnect(new ConnectTimeoutException("connection timed out"));
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(504);
            assertThat(rig.moves).isEqualTo(moves(DECIDING, FORWARD, CONNECTING, CONNECTING, ANSWERED, DONE,
                    DECIDING, FORWARD, CONNECTING, CONNECTING, ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aConnectionArrivingAfterTheClientLeftGoesBackToThePool() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(0), LastHttpContent.EMPTY_LAST_CONTENT);
            rig.decide();
            rig.client.close();
            EmbeddedChannel up = rig.connect();
            assertThat(rig.released).singleElement().satisfies(r -> {
                assertThat(r[0]).isSameAs(up);
                assertThat(r[1]).isEqualTo(true);
            });
            assertThat(rig.moves).isEqualTo(moves(DECIDING, FORWARD, CONNECTING, CONNECTING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private static HttpRequest h2Request(String body) {
        DefaultFullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/labels",
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + ExchangeRig.KEY);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length());
        return r;
    }

    private List<Move> anHttp2StreamWaitsAtAFullGateThenForwards() {
        UpstreamStreamGate gate = new UpstreamStreamGate(1);
        gate.enter(() -> { }); // another stream of the connection holds the only place
        try (ExchangeRig rig = new ExchangeRig(true, gate, false)) {
            rig.send(h2Request("abc"));
            rig.decide();
            assertThat(rig.state()).isEqualTo(GATED);
            assertThat(rig.acquires).isEmpty();
            gate.leave(); // the place passes to this stream
            assertThat(rig.state()).isEqualTo(CONNECTING);
            EmbeddedChannel up = rig.connect();
            assertThat(drain(up)).containsExactly("POST /v1/labels", "last abc");
            up.writeInbound(upstreamHead(201, 0));
            up.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
            assertThat(out(rig.client, HttpResponse.class).status().code()).isEqualTo(201);
            out(rig.client, LastHttpContent.class);
            assertThat(gate.held()).as("given back").isZero();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, GATE_FULL, GATED, GATED, GATE_OPENED, CONNECTING,
                    CONNECTING, ATTACHED, FORWARDING, FORWARDING, HEAD_WRITTEN, RESPONDING, RESPONDING, COMPLETED,
                    DONE));
            return rig.moves;
        }
    }

    private List<Move> aGateWaitLongerThanConnectTimeoutIs504() {
        UpstreamStreamGate gate = new UpstreamStreamGate(1);
        gate.enter(() -> { });
        try (ExchangeRig rig = new ExchangeRig(true, gate, false)) {
            rig.send(h2Request("abc"));
            rig.decide();
            rig.advance(rig.upstreamConfig.connectTimeout().toMillis());
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(504);
            assertThat(gate.waiting()).isZero();
            assertThat(gate.held()).isEqualTo(1);
            assertThat(rig.moves).isEqualTo(moves(DECIDING, GATE_FULL, GATED, GATED, ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aStreamThatLeavesWhileGatedStopsWaiting() {
        UpstreamStreamGate gate = new UpstreamStreamGate(1);
        gate.enter(() -> { });
        try (ExchangeRig rig = new ExchangeRig(true, gate, false)) {
            rig.send(h2Request("abc"));
            rig.decide();
            rig.client.close();
            assertThat(gate.waiting()).isZero();
            gate.leave();
            assertThat(gate.held()).isZero();
            assertThat(rig.acquires).isEmpty();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, GATE_FULL, GATED, GATED, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    /** FORWARDING, then the upstream's 503 head, held for the refunded fields of the slow store. */
    private static EmbeddedChannel holding(ExchangeRig rig, BodyTap tap) {
        EmbeddedChannel up = forwarding(rig, tap);
        up.writeInbound(upstreamHead(503, 4));
        assertThat(rig.state()).isEqualTo(HOLDING);
        assertThat((Object) rig.client.readOutbound()).as("the head waits").isNull();
        return up;
    }

    private List<Move> anUpstream503WaitsForItsRefundedFields() {
        try (ExchangeRig rig = new ExchangeRig(false, null, true)) {
            EmbeddedChannel up = holding(rig, null);
            up.writeInbound(last("busy"));
            assertThat((Object) rig.client.readOutbound()).isNull();
            rig.storeReply.complete(null);
            HttpResponse head = out(rig.client, HttpResponse.class);
            assertThat(head.status().code()).isEqualTo(503);
            // SPEC §3.9: the charge of 1 was refunded, so the whole burst of 20 is left
            assertThat(head.headers().get("RateLimit")).contains("\"burst\";r=20");
            LastHttpContent end = (LastHttpContent) rig.client.readOutbound();
            assertThat(text(end)).isEqualTo("busy");
            end.release();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, FORWARD, CONNECTING, CONNECTING, ATTACHED, FORWARDING,
                    FORWARDING, HEAD_HELD, HOLDING, HOLDING, HEAD_WRITTEN, RESPONDING, RESPONDING, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aHeld503WhoseClientLeavesIsReadOnForTheStage() {
        try (ExchangeRig rig = new ExchangeRig(false, null, true)) {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel up = holding(rig, recordingTap(seen, new boolean[] {true}));
            HttpContent held = part("bu");
            up.writeInbound(held);
            rig.client.close();
            assertThat(held.refCnt()).as("released with the client").isZero();
            rig.storeReply.complete(null); // finds the exchange detached
            up.writeInbound(last("sy"));
            assertThat(seen).containsExactly("request abc", "head 503", "response sy", "response complete",
                    "end false");
            assertThat(rig.released).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(true));
            assertThat(rig.moves.subList(3, rig.moves.size())).isEqualTo(moves(HOLDING, DETACH, DETACHED,
                    DETACHED, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aHeld503WhoseUpstreamFailsIsCut() {
        try (ExchangeRig rig = new ExchangeRig(false, null, true)) {
            EmbeddedChannel up = holding(rig, null);
            up.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
            assertThat(rig.client.isOpen()).as("HTTP/1.1: the connection is closed").isFalse();
            assertThat(rig.moves.subList(3, rig.moves.size())).isEqualTo(moves(HOLDING, CUT, DONE, DONE, CLIENT_GONE,
                    DONE));
            return rig.moves;
        }
    }

    private List<Move> aHeld503WhoseClientLeavesWithoutStageIsDropped() {
        try (ExchangeRig rig = new ExchangeRig(false, null, true)) {
            EmbeddedChannel up = holding(rig, null);
            rig.client.close();
            assertThat(up.isOpen()).isFalse();
            assertThat(rig.released).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(false));
            assertThat(rig.moves.subList(3, rig.moves.size())).isEqualTo(moves(HOLDING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private List<Move> aSilentUpstreamIs504AfterResponseTimeout() {
        try (ExchangeRig rig = new ExchangeRig()) {
            EmbeddedChannel up = forwarding(rig, null);
            long half = rig.upstreamConfig.responseTimeout().toMillis() / 2; // the embedded clock also runs
            rig.advance(half);
            assertThat((Object) rig.client.readOutbound()).isNull();
            rig.advance(half);
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(504);
            assertThat(up.isOpen()).as("discarded").isFalse();
            // an upstream that fails: 502
            EmbeddedChannel second = forwarding(rig, null);
            second.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(502);
            assertThat(rig.moves.subList(1, 3)).isEqualTo(moves(CONNECTING, ATTACHED, FORWARDING, FORWARDING,
                    ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aStalledBodyIs408() {
        try (ExchangeRig rig = new ExchangeRig()) {
            rig.send(post(10), part("ab"));
            rig.decide();
            EmbeddedChannel up = rig.connect();
            assertThat(drain(up)).containsExactly("POST /v1/labels", "part ab");
            rig.advance(rig.edge.listen().bodyIdleTimeout().toMillis());
            FullHttpResponse r = out(rig.client, FullHttpResponse.class);
            assertThat(r.status().code()).isEqualTo(408); // RFC 9110 §15.5.9
            assertThat(r.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
            assertThat(rig.registry.get("sluice.edge.client.stalls").counter().count()).isEqualTo(1.0);
            assertThat(rig.moves.subList(1, 3)).isEqualTo(moves(CONNECTING, ATTACHED, FORWARDING, FORWARDING,
                    ANSWERED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aClientLeavingWhileForwardingDiscardsTheConnection() {
        try (ExchangeRig rig = new ExchangeRig()) {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel up = forwarding(rig, recordingTap(seen, new boolean[1]));
            rig.client.close();
            assertThat(up.isOpen()).isFalse();
            assertThat(seen).containsExactly("request abc", "end false");
            assertThat(rig.moves.subList(2, 3)).isEqualTo(moves(FORWARDING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private List<Move> aClientLeavingAfterItsWholeRequestIsReadOnForTheStage() {
        try (ExchangeRig rig = new ExchangeRig()) {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel up = forwarding(rig, recordingTap(seen, new boolean[] {true}));
            rig.client.close();
            assertThat(rig.moves.get(rig.moves.size() - 1).to()).isEqualTo(DETACHED);
            up.writeInbound(upstreamHead(201, 2));
            up.writeInbound(last("ok"));
            assertThat(seen).containsExactly("request abc", "head 201", "response ok", "response complete",
                    "end false");
            assertThat(rig.released).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(true));
            assertThat(rig.moves.subList(2, rig.moves.size())).isEqualTo(moves(FORWARDING, DETACH, DETACHED,
                    DETACHED, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private static HttpRequest withDeadline(HttpRequest r) {
        r.headers().set("Request-Timeout", "1");
        return r;
    }

    private List<Move> aDeadlineAtTheUpstreamAnswers504AndReadsOn() {
        try (ExchangeRig rig = new ExchangeRig()) {
            List<String> seen = new ArrayList<>();
            rig.send(withDeadline(post(3)), last("abc"));
            rig.decide(v -> ((Verdict.Forward) v).withListener(recordingTap(seen, new boolean[] {true})));
            EmbeddedChannel up = rig.connect();
            drain(up);
            rig.advance(1_000); // SPEC §3.9: Request-Timeout 1 s
            FullHttpResponse r = out(rig.client, FullHttpResponse.class);
            assertThat(r.status().code()).isEqualTo(504);
            assertThat(rig.client.isOpen()).as("HTTP/1.1: closed after the answer").isFalse();
            up.writeInbound(upstreamHead(201, 0));
            up.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
            assertThat(seen).containsExactly("request abc", "head 201", "response complete", "end false");
            assertThat(rig.moves.subList(2, rig.moves.size())).isEqualTo(moves(FORWARDING, DETACH, DETACHED,
                    DETACHED, DETACH, DETACHED, DETACHED, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private List<Move> aDetachedReadThatFailsIsCut() {
        try (ExchangeRig rig = new ExchangeRig()) {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel up = forwarding(rig, recordingTap(seen, new boolean[] {true}));
            rig.client.close();
            up.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
            assertThat(up.isOpen()).isFalse();
            assertThat(seen).containsExactly("request abc", "end false");
            // a detached read is bounded by the response timeout before the head (an HTTP/2 stream answered at
            // its deadline: the embedded client loop, unlike a real one, runs no timer once its channel closed)
            try (ExchangeRig other = new ExchangeRig(true, null, false)) {
                other.send(withDeadline(h2Request("abc")));
                other.decide(v -> ((Verdict.Forward) v).withListener(recordingTap(new ArrayList<>(),
                        new boolean[] {true})));
                EmbeddedChannel second = other.connect();
                drain(second);
                other.advance(1_000);
                out(other.client, FullHttpResponse.class);
                other.advance(other.upstreamConfig.responseTimeout().toMillis());
                assertThat(second.isOpen()).isFalse();
                assertThat(other.moves.subList(3, 4)).isEqualTo(moves(DETACHED, CUT, DONE));
            }
            assertThat(rig.moves.subList(3, 4)).isEqualTo(moves(DETACHED, CUT, DONE));
            return rig.moves;
        }
    }

    private List<Move> aDetachedStreamNobodyWantsAnyMoreEnds() {
        try (ExchangeRig rig = new ExchangeRig(true, null, false)) {
            boolean[] wants = {true};
            rig.send(withDeadline(h2Request("abc")));
            rig.decide(v -> ((Verdict.Forward) v).withListener(recordingTap(new ArrayList<>(), wants)));
            EmbeddedChannel up = rig.connect();
            drain(up);
            rig.advance(1_000);
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(504);
            assertThat(rig.state()).isEqualTo(DETACHED);
            wants[0] = false; // e.g. the stage gave up recording
            rig.client.close();
            assertThat(up.isOpen()).isFalse();
            assertThat(rig.moves.subList(2, rig.moves.size())).isEqualTo(moves(FORWARDING, DETACH, DETACHED,
                    DETACHED, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    /** FORWARDING, then the upstream's 200 head with 4 body bytes announced, two of them relayed. */
    private static EmbeddedChannel responding(ExchangeRig rig, BodyTap tap) {
        EmbeddedChannel up = forwarding(rig, tap);
        up.writeInbound(upstreamHead(200, 4));
        up.writeInbound(part("ok"));
        out(rig.client, HttpResponse.class);
        HttpContent relayed = rig.client.readOutbound();
        assertThat(text(relayed)).isEqualTo("ok");
        relayed.release();
        assertThat(rig.state()).isEqualTo(RESPONDING);
        return up;
    }

    private List<Move> aClientLeavingMidResponseIsReadOnForTheStage() {
        try (ExchangeRig rig = new ExchangeRig()) {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel up = responding(rig, recordingTap(seen, new boolean[] {true}));
            rig.client.close();
            HttpContent rest = last("!!");
            up.writeInbound(rest);
            assertThat(rest.refCnt()).isZero();
            assertThat(seen).containsExactly("request abc", "head 200", "response ok", "response !!",
                    "response complete", "end false");
            assertThat(rig.moves.subList(3, rig.moves.size())).isEqualTo(moves(RESPONDING, DETACH, DETACHED,
                    DETACHED, COMPLETED, DONE));
            return rig.moves;
        }
    }

    private List<Move> anUpstreamFailingMidResponseCutsIt() {
        try (ExchangeRig rig = new ExchangeRig()) {
            EmbeddedChannel up = responding(rig, null);
            up.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
            assertThat(rig.client.isOpen()).isFalse();
            try (ExchangeRig h2 = new ExchangeRig(true, null, false)) {
                h2.send(h2Request("abc"));
                h2.decide();
                EmbeddedChannel up2 = h2.connect();
                drain(up2);
                up2.writeInbound(upstreamHead(200, 4));
                out(h2.client, HttpResponse.class);
                up2.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
                assertThat(out(h2.client, Http2ResetFrame.class).errorCode()).as("HTTP/2: the stream is reset")
                        .isEqualTo(io.netty.handler.codec.http2.Http2Error.INTERNAL_ERROR.code());
            }
            assertThat(rig.moves.subList(3, 4)).isEqualTo(moves(RESPONDING, CUT, DONE));
            return rig.moves;
        }
    }

    private List<Move> aClientLeavingMidResponseDiscardsTheConnection() {
        try (ExchangeRig rig = new ExchangeRig()) {
            EmbeddedChannel up = responding(rig, null);
            rig.client.close();
            assertThat(up.isOpen()).isFalse();
            assertThat(rig.released).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(false));
            assertThat(rig.moves.subList(3, 4)).isEqualTo(moves(RESPONDING, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }

    private List<Move> aFinishedStreamClosing() {
        try (ExchangeRig rig = new ExchangeRig(true, null, false)) {
            DefaultFullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/v1/quotes");
            rig.send(r);
            rig.decide();
            assertThat(out(rig.client, FullHttpResponse.class).status().code()).isEqualTo(401);
            assertThat(rig.state()).as("an HTTP/2 stream keeps its one exchange").isEqualTo(DONE);
            rig.client.close();
            assertThat(rig.moves).isEqualTo(moves(DECIDING, ANSWERED, DONE, DONE, CLIENT_GONE, DONE));
            return rig.moves;
        }
    }
}
