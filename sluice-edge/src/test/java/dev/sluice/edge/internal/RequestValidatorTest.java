package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.config.ListenConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The framing and validation step in an {@link EmbeddedChannel}: raw HTTP/1.1 bytes through Netty's server codec
 * (as on the public port), or HTTP/2-shaped request objects; what comes out is the request (target normalised)
 * or one {@link RequestValidator.Refusal} with the status RFC 9110 / RFC 9112 name.
 */
class RequestValidatorTest {

    /** DEFAULT: 100 fields, 16 KiB header section, 8 KiB request line. */
    private static final ListenConfig LISTEN = ListenConfig.DEFAULT;

    private static EmbeddedChannel http1() {
        return new EmbeddedChannel(new HttpServerCodec(LISTEN.maxRequestLineBytes(), LISTEN.maxHeaderBytes(), 16 * 1024),
                new RequestValidator(LISTEN, false));
    }

    private static Object first(String raw) {
        EmbeddedChannel ch = http1();
        ch.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
        Object out = ch.readInbound();
        ch.finishAndReleaseAll();
        return out;
    }

    private static RequestValidator.Refusal refusal(String raw) {
        Object out = first(raw);
        assertThat(out).isInstanceOf(RequestValidator.Refusal.class);
        return (RequestValidator.Refusal) out;
    }

    @Test
    void aValidRequestPassesWithItsTargetNormalised() {
        // RFC 3986 §6.2.2: %3A decoded, // merged, dot segments removed; the query is left as it is
        Object out = first("GET /v1/x/..//labels%3Abatch?a=%2F HTTP/1.1\r\nHost: edge\r\n\r\n");
        assertThat(out).isInstanceOf(HttpRequest.class);
        assertThat(((HttpRequest) out).uri()).isEqualTo("/v1/labels:batch?a=%2F");
    }

    @Test
    void theHttp1RefusalsCarryTheirStatusAndReason() {
        assertThat(refusal("GET / HTTP/9.9\r\nHost: edge\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(505, "http_version"); // RFC 9110 §15.6.6
        assertThat(refusal("GET / HTTP/1.1\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(400, "bad_host"); // RFC 9112 §3.2: Host is required
        assertThat(refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").detail())
                .isEqualTo("The request has more than one Host field.");
        assertThat(refusal("GET / HTTP/1.1\r\nHost: a b\r\n\r\n").reason()).isEqualTo("bad_host");
        assertThat(refusal("POST / HTTP/1.1\r\nHost: e\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(501, "transfer_coding"); // RFC 9112 §6.1
        assertThat(refusal("GET /v1/%2F HTTP/1.1\r\nHost: e\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(400, "bad_target");
        assertThat(refusal("GET /a%00b HTTP/1.1\r\nHost: e\r\n\r\n").reason()).isEqualTo("bad_target");
        // Netty's decoder: Content-Length beside Transfer-Encoding (RFC 9112 §6.1, smuggling)
        assertThat(refusal("POST / HTTP/1.1\r\nHost: e\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(400, "malformed");
        // HTTP/1.0 needs no Host
        assertThat(first("GET / HTTP/1.0\r\n\r\n")).isInstanceOf(HttpRequest.class);
    }

    @Test
    void sizeLimitsAre414And431() {
        assertThat(refusal("GET /" + "a".repeat(LISTEN.maxRequestLineBytes()) + " HTTP/1.1\r\nHost: e\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(414, "request_line_too_long");
        assertThat(refusal("GET / HTTP/1.1\r\nHost: e\r\nX-Big: " + "b".repeat(LISTEN.maxHeaderBytes()) + "\r\n\r\n"))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(431, "header_too_large");
        StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: e\r\n");
        for (int i = 0; i < LISTEN.maxHeaderCount(); i++) {
            many.append("X-F").append(i).append(": 1\r\n");
        }
        assertThat(refusal(many.append("\r\n").toString()))
                .extracting(RequestValidator.Refusal::status, RequestValidator.Refusal::reason)
                .containsExactly(431, "too_many_headers");
    }

    @Test
    void afterARefusalEverythingLaterIsReleasedNotPassedOn() {
        EmbeddedChannel ch = http1();
        ch.writeInbound(Unpooled.copiedBuffer("POST / HTTP/9.9\r\nHost: e\r\nContent-Length: 4\r\n\r\nbody"
                + "GET / HTTP/1.1\r\nHost: e\r\n\r\n", StandardCharsets.ISO_8859_1));
        assertThat((Object) ch.readInbound()).isInstanceOf(RequestValidator.Refusal.class);
        assertThat((Object) ch.readInbound()).isNull(); // the body and the next request were released
        ByteBuf late = Unpooled.copiedBuffer("more", StandardCharsets.US_ASCII);
        HttpContent content = new DefaultHttpContent(late);
        ch.writeInbound(content);
        assertThat(late.refCnt()).isZero();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void onAnHttp2StreamTheWholeRequestIsReleasedWhenRefused() {
        EmbeddedChannel ch = new EmbeddedChannel(new RequestValidator(LISTEN, true));
        ByteBuf body = Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII);
        DefaultFullHttpRequest whole = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/a\u0001b", body);
        ch.writeInbound(whole);
        RequestValidator.Refusal r = ch.readInbound();
        assertThat(r.status()).isEqualTo(400);
        assertThat(body.refCnt()).isZero();
        // an HTTP/2 stream is not checked for Host (it has :authority) nor for the HTTP/1 version
        EmbeddedChannel ok = new EmbeddedChannel(new RequestValidator(LISTEN, true));
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/v1/./quotes");
        ok.writeInbound(head, LastHttpContent.EMPTY_LAST_CONTENT);
        HttpRequest passed = ok.readInbound();
        assertThat(passed.uri()).isEqualTo("/v1/quotes");
        assertThat(passed.headers().contains(HttpHeaderNames.HOST)).isFalse();
        assertThat((Object) ok.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(ok.finish()).isFalse();
        assertThat(ch.finish()).isFalse();
    }
}
