package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.DefaultEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3.1: a verdict already complete when the decider returns (an in-memory store) is handled at once on the
 * loop, without a completion callback; anything else keeps the callback and the hop to the loop.
 */
class CompletedVerdictHandOffTest {

    private static final Verdict.Answer ANSWER = new Verdict.Answer(new EdgeResponse(429, List.of(), new byte[0]),
            new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false));
    private static final RequestHead HEAD = RequestHead.of("GET", "/v1/labels", "Bearer sk_1", "192.0.2.7");

    /** A future that counts the completion callbacks registered on it. */
    private static final class CountingFuture<T> extends CompletableFuture<T> {
        final AtomicInteger callbacks = new AtomicInteger();

        @Override
        public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
            callbacks.incrementAndGet();
            return super.whenComplete(action);
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }

    @Test
    void aCompleteVerdictOnTheLoopRegistersNoCallback() {
        EmbeddedChannel ch = new EmbeddedChannel();
        CountingFuture<Verdict> done = new CountingFuture<>();
        done.complete(ANSWER);
        List<Verdict> seen = new ArrayList<>();
        new DecisionHandOff(h -> done).decide(HEAD, ch.eventLoop(), (v, e) -> seen.add(v));
        assertThat(seen).containsExactly(ANSWER);
        assertThat(done.callbacks).hasValue(0);
        ch.finishAndReleaseAll();
    }

    @Test
    void aFailedVerdictOnTheLoopIsHandedOverAsTheFailure() {
        EmbeddedChannel ch = new EmbeddedChannel();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        new DecisionHandOff(h -> CompletableFuture.failedFuture(new IllegalStateException("store down")))
                .decide(HEAD, ch.eventLoop(), (v, e) -> failure.set(e));
        assertThat(failure.get()).isInstanceOf(IllegalStateException.class).hasMessage("store down");
        ch.finishAndReleaseAll();
    }

    @Test
    void aCompleteVerdictAskedForOffTheLoopStillRunsOnTheLoop() throws Exception {
        DefaultEventExecutor loop = new DefaultEventExecutor();
        try {
            AtomicReference<Boolean> onLoop = new AtomicReference<>();
            CompletableFuture<Verdict> handled = new CompletableFuture<>();
            CompletionStage<Verdict> done = CompletableFuture.completedFuture(ANSWER);
            new DecisionHandOff(h -> done).decide(HEAD, loop, (v, e) -> {
                onLoop.set(loop.inEventLoop());
                handled.complete(v);
            });
            assertThat(handled.get(10, TimeUnit.SECONDS)).isEqualTo(ANSWER);
            assertThat(onLoop.get()).isTrue();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
