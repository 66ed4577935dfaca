package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** SPEC §3.1: the decider sees the head only, and its verdict is handled on the client channel's event loop. */
class DecisionHandOffTest {

    private static final Verdict.Answer ANSWER = new Verdict.Answer(new EdgeResponse(429, List.of(), new byte[0]),
            new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false));

    @Test
    void theHeadCarriesTheNormalisedPathTheQueryAndTheFieldsDecidedOn() {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/labels?dry=1");
        request.headers().add("Authorization", "Bearer sk_1").add("Content-Length", "12")
                .add("Idempotency-Key", "\"k1\"").add("Request-Timeout", "5").add("X-Other", "ignored");
        RequestHead head = DecisionHandOff.head(request, true, "192.0.2.7", 42);
        assertThat(head).isEqualTo(new RequestHead("POST", "/v1/labels", List.of("Bearer sk_1"), List.of("12"), true,
                "192.0.2.7", List.of("\"k1\""), List.of("5"), 42, "dry=1"));
    }

    @Test
    void aVerdictGivenOnTheLoopIsHandledInline() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<Verdict> seen = new ArrayList<>();
        new DecisionHandOff(h -> CompletableFuture.completedFuture(ANSWER))
                .decide(RequestHead.of("GET", "/v1/labels", "Bearer sk_1", "192.0.2.7"), ch.eventLoop(),
                        (v, e) -> seen.add(v));
        assertThat(seen).containsExactly(ANSWER); // no task queued: the answer is written in the same read
        ch.finishAndReleaseAll();
    }

    @Test
    void aVerdictFromAnotherThreadHopsToTheLoop() throws Exception {
        DefaultEventExecutor loop = new DefaultEventExecutor();
        try {
            CompletableFuture<Verdict> reply = new CompletableFuture<>();
            AtomicReference<Thread> handledOn = new AtomicReference<>();
            CountDownLatch handled = new CountDownLatch(1);
            new DecisionHandOff(h -> reply).decide(RequestHead.of("GET", "/v1/labels", "Bearer sk_1", "192.0.2.7"),
                    loop, (v, e) -> {
                        handledOn.set(Thread.currentThread());
                        handled.countDown();
                    });
            reply.complete(ANSWER); // a shared store's reply, on this (test) thread
            assertThat(handled.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(loop.inEventLoop(handledOn.get())).isTrue();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDeciderThatThrowsIsAFailedVerdict() {
        EmbeddedChannel ch = new EmbeddedChannel();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        new DecisionHandOff(h -> {
            throw new IllegalStateException("decider bug");
        }).decide(RequestHead.of("GET", "/v1/labels", "Bearer sk_1", "192.0.2.7"), ch.eventLoop(),
                (v, e) -> failure.set(e));
        assertThat(failure.get()).isInstanceOf(IllegalStateException.class).hasMessage("decider bug");
        ch.finishAndReleaseAll();
    }
}
