package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.EdgeRules;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.testing.Edges;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.ManualTimeSource;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Http1Codec} writes an {@link Http1Answer} byte for byte as Netty's {@code HttpServerCodec} writes the
 * same response built by {@link HttpMessages#toNetty} (the contract's headers, SPEC §2.4, §3.5; RFC 9110 §6.6.1
 * {@code Date}), for the edge's real decisions, kept or closing connections, {@code HEAD}, and across a second
 * boundary of an injected clock.
 */
class Http1AnswerBytesTest {

    private static final String KEY = "sk_test_free_1";

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00.600Z");
    private final DateField dates = new DateField(time);
    private final EdgeDecider decider = new EdgeDecider(new EdgeRules(EdgeConfig.parse("test.yaml", Edges.SHIPLANE)),
            new InMemoryLimiterStore(time), time, List.of());
    private final EmbeddedChannel netty = new EmbeddedChannel(new HttpServerCodec(new HttpDecoderConfig()));
    private final EmbeddedChannel edge = new EmbeddedChannel(new Http1Codec(new HttpDecoderConfig()));

    @AfterEach
    void release() {
        netty.finishAndReleaseAll();
        edge.finishAndReleaseAll();
    }

    private EdgeResponse decide(String method, String path, String authorization) {
        Verdict v = decider.decide(RequestHead.of(method, path, authorization, "192.0.2.7")).toCompletableFuture()
                .join();
        assertThat(v).isInstanceOf(Verdict.Answer.class);
        return ((Verdict.Answer) v).response();
    }

    /** The 429 of a Free key past its burst of 20 (SPEC §2.1), with its RateLimit fields. */
    private EdgeResponse burstDenial() {
        for (int i = 0; i < 20; i++) {
            assertThat(decider.decide(RequestHead.of("GET", "/v1/quotes", "Bearer " + KEY, "192.0.2.7"))
                    .toCompletableFuture().join()).isInstanceOf(Verdict.Forward.class);
        }
        EdgeResponse r = decide("GET", "/v1/quotes", "Bearer " + KEY);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.header("RateLimit")).isPresent();
        return r;
    }

    /** Sends {@code method /} into both codecs (each pairs its next response with it). */
    private void request(String method) {
        String head = method + " / HTTP/1.1\r\nHost: edge.example\r\n\r\n";
        for (EmbeddedChannel ch : List.of(netty, edge)) {
            ch.writeInbound(Unpooled.copiedBuffer(head, StandardCharsets.US_ASCII));
            Object in;
            while ((in = ch.readInbound()) != null) {
                assertThat(in instanceof HttpRequest || in instanceof io.netty.handler.codec.http.LastHttpContent)
                        .isTrue();
                ReferenceCountUtil.release(in);
            }
        }
    }

    private static String written(EmbeddedChannel ch) {
        StringBuilder out = new StringBuilder();
        Object o;
        while ((o = ch.readOutbound()) != null) {
            ByteBuf b = (ByteBuf) o;
            out.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    /** The bytes of both ways of writing {@code r}: {Netty's, the codec's}. */
    private String[] both(EdgeResponse r, boolean close) {
        AsciiString date = dates.now();
        FullHttpResponse slow = HttpMessages.toNetty(r, date);
        HttpUtil.setKeepAlive(slow, !close);
        netty.writeOutbound(slow);
        edge.writeOutbound(new Http1Answer(r, date, close));
        return new String[] {written(netty), written(edge)};
    }

    @Test
    void aBurstDenialIsWrittenAsNettyWritesIt() {
        EdgeResponse denial = burstDenial();
        request("GET");
        String[] bytes = both(denial, false);
        assertThat(bytes[1]).isEqualTo(bytes[0]);
        assertThat(bytes[1]).startsWith("HTTP/1.1 429 Too Many Requests\r\ndate: Mon, 30 Nov 2026 18:00:00 GMT\r\n")
                .contains("\r\nRetry-After: ", "\r\nRateLimit: \"burst\";r=0;t=")
                .doesNotContain("connection:");
    }

    @Test
    void aClosingAnswerCarriesConnectionCloseLikeNettys() {
        EdgeResponse denial = burstDenial();
        request("GET");
        String[] bytes = both(denial, true);
        assertThat(bytes[1]).isEqualTo(bytes[0]).contains("\r\nconnection: close\r\n\r\n{");
    }

    @Test
    void unauthenticatedUsageAndRefusalsAreWrittenAsNettyWritesThem() {
        EdgeResponse noKey = decide("GET", "/v1/quotes", null);
        EdgeResponse unknown = decide("GET", "/v1/quotes", "Bearer sk_nobody_0123456789");
        EdgeResponse usage = decide("GET", "/v1/usage", "Bearer " + KEY);
        assertThat(List.of(noKey.status(), unknown.status(), usage.status())).containsExactly(401, 401, 200);
        for (EdgeResponse r : List.of(noKey, unknown, usage)) {
            request("GET");
            String[] bytes = both(r, false);
            assertThat(bytes[1]).isEqualTo(bytes[0]);
        }
    }

    @Test
    void theAnswerToHeadIsItsHeadAlone() {
        EdgeResponse denial = burstDenial();
        request("HEAD");
        String[] bytes = both(denial, false);
        assertThat(bytes[1]).isEqualTo(bytes[0]).endsWith("\r\n\r\n");
        assertThat(bytes[1]).contains("content-length: " + denial.body().length + "\r\n");
    }

    @Test
    void pipelinedRequestsArePairedWithTheirAnswersInOrder() {
        EdgeResponse denial = burstDenial();
        request("HEAD");
        request("GET");
        String[] head = both(denial, false);
        String[] get = both(denial, false);
        assertThat(head[1]).isEqualTo(head[0]);
        assertThat(get[1]).isEqualTo(get[0]).endsWith(new String(denial.body(), StandardCharsets.UTF_8));
    }

    @Test
    void theSameAnswerInTheNextSecondCarriesTheNewDate() {
        EdgeResponse denial = burstDenial(); // one instance, as the escalation stage's 429 within its second
        request("GET");
        String[] first = both(denial, false);
        request("GET");
        String[] again = both(denial, false); // the kept bytes
        time.advance(Duration.ofMillis(400)); // 18:00:01.000: the next second
        request("GET");
        String[] next = both(denial, false);
        assertThat(first[1]).isEqualTo(first[0]).contains("date: Mon, 30 Nov 2026 18:00:00 GMT\r\n");
        assertThat(again[1]).isEqualTo(again[0]).isEqualTo(first[1]);
        assertThat(next[1]).isEqualTo(next[0]).contains("date: Mon, 30 Nov 2026 18:00:01 GMT\r\n");
        assertThat(next[1].replace("18:00:01", "18:00:00")).isEqualTo(first[1]);
    }

    @Test
    void aResponseTheCodecCannotWriteByteForByteGoesThroughNettysEncoder() {
        EdgeResponse odd = new EdgeResponse(429, List.of(new Header("Retry-After", "5"),
                new Header("X-Note", "caf\u00e9")), "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(Http1Answer.encodable(odd)).isFalse();
        request("GET");
        String[] bytes = both(odd, false);
        assertThat(bytes[1]).isEqualTo(bytes[0]);
    }

    @Test
    void statusesWhoseFramingNettyRewritesAreNotEncodedHere() {
        assertThat(Http1Answer.encodable(new EdgeResponse(204, List.of(), new byte[0]))).isFalse();
        assertThat(Http1Answer.encodable(new EdgeResponse(304, List.of(), new byte[0]))).isFalse();
        assertThat(Http1Answer.encodable(new EdgeResponse(429, List.of(new Header("Content-Length", "2")),
                new byte[2]))).isFalse();
        assertThat(Http1Answer.encodable(new EdgeResponse(429, List.of(new Header("Bad Name", "x")),
                new byte[0]))).isFalse();
        assertThat(Http1Answer.encodable(new EdgeResponse(429, List.of(new Header("X-Split", "a\r\nb")),
                new byte[0]))).isFalse();
    }

    @Test
    void anInterimResponseDoesNotTakeTheMethodOfTheRequestBehindIt() {
        // RFC 9110 §15.2: a 1xx answers no request; Netty's HttpServerCodec pairs the final answer, not the
        // 100 Continue, with the request's method. A POST awaiting 100 Continue with a HEAD pipelined behind it:
        // the POST's final answer keeps its body and the HEAD's answer is its head alone.
        EdgeResponse denial = burstDenial();
        request("POST");
        request("HEAD");
        netty.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        edge.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        assertThat(written(edge)).isEqualTo(written(netty)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        String[] post = both(denial, false);
        String[] head = both(denial, false);
        assertThat(post[1]).isEqualTo(post[0]).endsWith(new String(denial.body(), StandardCharsets.UTF_8));
        assertThat(head[1]).isEqualTo(head[0]).endsWith("\r\n\r\n");
    }
}
