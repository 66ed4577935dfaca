package dev.sluice.edge.internal;

import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The decision hand-off (SPEC §3.1: the decision is taken on the request head, before any of the body): the head
 * as the {@link dev.sluice.edge.decision.EdgeDecider} sees it, the decider called with it alone, and its verdict
 * brought back to the client channel's event loop: inline when the decider answered there (an in-memory store; a
 * verdict already complete when the decider returns is taken at once, without a completion callback), else as a
 * task on that loop (a shared store's reply arrives on its own thread).
 *
 * <p>Stateless apart from the decision function; thread-safe.
 */
final class DecisionHandOff {

    private static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final String REQUEST_TIMEOUT = "Request-Timeout";

    private final Function<RequestHead, CompletionStage<Verdict>> decide;

    DecisionHandOff(Function<RequestHead, CompletionStage<Verdict>> decide) {
        this.decide = decide;
    }

    /**
     * The head the decider sees: method, the path normalised by the {@link RequestValidator} (without the query),
     * the fields it decides on, and the query.
     *
     * @param bodyExpected whether a body follows the head
     * @param clientAddress the peer's IP address, or {@code unknown}
     * @param receivedNanos when the head arrived ({@link dev.sluice.time.TimeSource#nanoTime()})
     */
    static RequestHead head(HttpRequest request, boolean bodyExpected, String clientAddress, long receivedNanos) {
        String uri = request.uri();
        return new RequestHead(request.method().name(), HttpMessages.path(uri),
                request.headers().getAll(HttpHeaderNames.AUTHORIZATION),
                request.headers().getAll(HttpHeaderNames.CONTENT_LENGTH), bodyExpected, clientAddress,
                request.headers().getAll(IDEMPOTENCY_KEY), request.headers().getAll(REQUEST_TIMEOUT), receivedNanos,
                HttpMessages.query(uri));
    }

    /**
     * Asks for the verdict on {@code head} and calls {@code onVerdict} with it (or with the failure, also when the
     * decision function throws) on {@code loop}, once.
     */
    void decide(RequestHead head, EventExecutor loop, BiConsumer<Verdict, Throwable> onVerdict) {
        CompletionStage<Verdict> decision;
        try {
            decision = decide.apply(head);
        } catch (RuntimeException e) {
            decision = CompletableFuture.failedFuture(e);
        }
        if (decision instanceof CompletableFuture<Verdict> done && done.state() == Future.State.SUCCESS
                && loop.inEventLoop()) {
            // an in-memory store answers before decide returns: no callback to register and run
            onVerdict.accept(done.resultNow(), null);
            return;
        }
        decision.whenComplete((verdict, error) -> {
            if (loop.inEventLoop()) {
                onVerdict.accept(verdict, error);
            } else {
                loop.execute(() -> onVerdict.accept(verdict, error));
            }
        });
    }
}
