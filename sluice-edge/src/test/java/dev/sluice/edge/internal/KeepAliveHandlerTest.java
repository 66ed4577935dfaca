package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keep-alive, pipelining and close after an answer, in an {@link EmbeddedChannel}: requests go in as the
 * HTTP/1.1 codec makes them, a recording handler stands for the edge handler, and the test writes the responses.
 * The 2 s linger itself needs a socket ({@code DuplexChannel}); {@code TransportHttpTest} reads the answer of a
 * client still sending 10 MiB over loopback.
 */
class KeepAliveHandlerTest {

    private static final long DRAIN_BOUND = 64 * 1024; // listen.drain-bound-bytes' default

    /** What reached the edge handler: request heads by method and path, body parts by their text. */
    private final List<String> passed = new ArrayList<>();
    private final EmbeddedChannel ch = new EmbeddedChannel(new KeepAliveHandler(DRAIN_BOUND, null),
            new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof HttpRequest r) {
                        passed.add(r.method() + " " + r.uri());
                    } else if (msg instanceof RequestValidator.Refusal r) {
                        passed.add("refusal " + r.status());
                    } else if (msg instanceof HttpContent c) {
                        passed.add((c instanceof LastHttpContent ? "last " : "part ")
                                + c.content().toString(StandardCharsets.UTF_8));
                    }
                    ReferenceCountUtil.release(msg);
                }
            });

    private KeepAliveHandler handler() {
        return ch.pipeline().get(KeepAliveHandler.class);
    }

    private static HttpRequest request(String path, String contentLength) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path);
        if (contentLength != null) {
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, contentLength);
        }
        return r;
    }

    private static HttpContent part(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    private static LastHttpContent last(String text) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    private static FullHttpResponse answer(int status) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
    }

    /** Writes {@code response} as the edge handler would and returns it as the client reads it. */
    private FullHttpResponse respond(FullHttpResponse response) {
        ch.writeAndFlush(response);
        FullHttpResponse out = ch.readOutbound();
        out.release();
        return out;
    }

    @Test
    void aKeptAliveRequestAnsweredAfterItsBodyLeavesTheConnectionOpen() {
        ch.writeInbound(request("/a", "2"), last("ab"));
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.AWAITING);
        FullHttpResponse out = respond(answer(200));
        assertThat(HttpUtil.isKeepAlive(out)).isTrue();
        assertThat(ch.isOpen()).isTrue();
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.IDLE);
        assertThat(passed).containsExactly("POST /a", "last ab");
        ch.finishAndReleaseAll();
    }

    @Test
    void aRequestOrAResponseAskingForCloseClosesOnceWritten() {
        HttpRequest closing = request("/a", "0");
        closing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE); // RFC 9112 §9.6
        ch.writeInbound(closing, LastHttpContent.EMPTY_LAST_CONTENT);
        FullHttpResponse out = respond(answer(200));
        assertThat(out.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(ch.isOpen()).isFalse();

        EmbeddedChannel second = new EmbeddedChannel(new KeepAliveHandler(DRAIN_BOUND, null));
        second.writeInbound(request("/a", "0"), LastHttpContent.EMPTY_LAST_CONTENT);
        FullHttpResponse timeout = answer(408);
        HttpUtil.setKeepAlive(timeout, false); // the edge closes after a 408 (RFC 9110 §15.5.9)
        second.writeAndFlush(timeout);
        ReferenceCountUtil.release(second.readOutbound());
        assertThat(second.isOpen()).isFalse();
        second.finishAndReleaseAll();
    }

    @Test
    void anAnswerBeforeASmallBodyRestKeepsTheConnectionAndDrainsTheRest() {
        ch.writeInbound(request("/a", "6"), part("ab"));
        FullHttpResponse out = respond(answer(429));
        assertThat(HttpUtil.isKeepAlive(out)).isTrue();
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.DRAINING);
        ch.writeInbound(part("cd"), last("ef"), request("/b", "0"), LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(passed).containsExactly("POST /a", "part ab", "part cd", "last ef", "POST /b", "last ");
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.AWAITING);
        ch.finishAndReleaseAll();
    }

    @Test
    void anAnswerBeforeALargeUnknownOrAwaitedBodyCloses() {
        // more than drain-bound-bytes still to come
        ch.writeInbound(request("/a", String.valueOf(DRAIN_BOUND + 3)), part("ab"));
        assertThat(respond(answer(429)).headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(ch.isOpen()).as("an EmbeddedChannel has no half-close: closed without the linger").isFalse();

        // a chunked body: its length is unknown
        EmbeddedChannel chunked = new EmbeddedChannel(new KeepAliveHandler(DRAIN_BOUND, null));
        HttpRequest r = request("/a", null);
        HttpUtil.setTransferEncodingChunked(r, true);
        chunked.writeInbound(r);
        chunked.writeAndFlush(answer(429));
        ReferenceCountUtil.release(chunked.readOutbound());
        assertThat(chunked.isOpen()).isFalse();
        chunked.finishAndReleaseAll();

        // Expect: 100-continue, answered without the 100: the client may send the body anyway or not at all
        EmbeddedChannel expecting = new EmbeddedChannel(new KeepAliveHandler(DRAIN_BOUND, null));
        HttpRequest e = request("/a", "2");
        e.headers().set(HttpHeaderNames.EXPECT, HttpHeaderValues.CONTINUE);
        expecting.writeInbound(e);
        expecting.writeAndFlush(answer(429));
        ReferenceCountUtil.release(expecting.readOutbound());
        assertThat(expecting.isOpen()).isFalse();
        expecting.finishAndReleaseAll();
    }

    @Test
    void aContinueDoesNotEndTheExchange() {
        HttpRequest e = request("/a", "2");
        e.headers().set(HttpHeaderNames.EXPECT, HttpHeaderValues.CONTINUE);
        ch.writeInbound(e);
        ch.writeAndFlush(answer(100));
        ReferenceCountUtil.release(ch.readOutbound());
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.READING);
        ch.writeInbound(last("ab"));
        ch.writeAndFlush(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        ch.writeAndFlush(last("ok"));
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.IDLE);
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void pipelinedRequestsWaitUntilTheResponseBeforeThemIsWritten() {
        HttpContent waiting = last("cd");
        ch.writeInbound(request("/a", "2"), last("ab"), request("/b", "2"), waiting);
        assertThat(passed).containsExactly("POST /a", "last ab");
        assertThat(waiting.refCnt()).as("held").isOne();
        respond(answer(200));
        assertThat(passed).containsExactly("POST /a", "last ab", "POST /b", "last cd");
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.AWAITING);
        respond(answer(201));
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.IDLE);
        ch.finishAndReleaseAll();
    }

    @Test
    void whatWaitsOrArrivesAfterTheDecisionToCloseIsReleased() {
        HttpContent waiting = last("cd");
        HttpRequest closing = request("/a", "0");
        closing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ch.writeInbound(closing, LastHttpContent.EMPTY_LAST_CONTENT, request("/b", "2"), waiting);
        respond(answer(200));
        assertThat(waiting.refCnt()).isZero();
        assertThat(passed).containsExactly("POST /a", "last ");
        ch.finishAndReleaseAll();

        EmbeddedChannel refused = new EmbeddedChannel(new KeepAliveHandler(DRAIN_BOUND, null));
        refused.writeInbound(new RequestValidator.Refusal(431, "request_header_fields_too_large", "Too large",
                "The header section is larger than 16 KiB.", "header_too_large"));
        FullHttpResponse answer = answer(431);
        HttpUtil.setKeepAlive(answer, false);
        refused.writeAndFlush(answer);
        ReferenceCountUtil.release(refused.readOutbound());
        assertThat(refused.isOpen()).isFalse();
        refused.finishAndReleaseAll();
    }

    @Test
    void aBrokenBodyNeverEndsItsRequest() {
        // RFC 9112 §7.1: the decoder's broken chunk is a last part with a failed result; more bytes may follow
        ch.writeInbound(request("/a", null));
        LastHttpContent broken = new DefaultLastHttpContent();
        broken.setDecoderResult(DecoderResult.failure(new IllegalArgumentException("invalid chunk size")));
        ch.writeInbound(broken);
        assertThat(handler().phase()).isEqualTo(KeepAliveHandler.Phase.READING);
        FullHttpResponse answer = answer(400);
        HttpUtil.setKeepAlive(answer, false);
        respond(answer);
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}
