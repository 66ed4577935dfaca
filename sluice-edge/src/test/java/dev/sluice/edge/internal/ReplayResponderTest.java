package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.testing.NoLeaks;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** SPEC §3.11: a recorded answer is replayed only for the same body; every body part is released. */
@ExtendWith(NoLeaks.class)
class ReplayResponderTest {

    private static final EdgeResponse RECORDED = new EdgeResponse(201, List.of(), "made".getBytes(StandardCharsets.UTF_8));
    private static final EdgeResponse CONFLICT = new EdgeResponse(409, List.of(), "conflict".getBytes(StandardCharsets.UTF_8));
    private static final DecisionRecord REPLAYED = new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.REPLAYED, false);
    private static final DecisionRecord CONFLICTED =
            new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.IDEMPOTENCY_CONFLICT, false);

    private static String sha256Hex(String body) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static HttpContent part(String s) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(s, StandardCharsets.UTF_8));
    }

    private static LastHttpContent last(String s) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(s, StandardCharsets.UTF_8));
    }

    @Test
    void theSameBodyInAnyPartsGetsTheRecordedAnswerAndEveryPartIsReleased() throws Exception {
        ReplayResponder r = new ReplayResponder(new Verdict.Replay(sha256Hex("{\"n\":1}"), RECORDED, REPLAYED,
                CONFLICT, CONFLICTED));
        HttpContent a = part("{\"n\"");
        LastHttpContent b = last(":1}");
        r.take(a);
        r.take(b);
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
        assertThat(r.finish()).isEqualTo(new ReplayResponder.Answer(RECORDED, REPLAYED));
    }

    @Test
    void anotherBodyGetsTheConflict() throws Exception {
        ReplayResponder r = new ReplayResponder(new Verdict.Replay(sha256Hex("{\"n\":1}"), RECORDED, REPLAYED,
                CONFLICT, CONFLICTED));
        r.take(last("{\"n\":2}"));
        assertThat(r.finish()).isEqualTo(new ReplayResponder.Answer(CONFLICT, CONFLICTED));
    }

    @Test
    void anEmptyBodyIsHashedAsNoBytes() throws Exception {
        ReplayResponder r = new ReplayResponder(new Verdict.Replay(sha256Hex(""), RECORDED, REPLAYED, CONFLICT,
                CONFLICTED));
        r.take(LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(r.finish().record().outcome()).isEqualTo(DecisionOutcome.REPLAYED);
    }
}
