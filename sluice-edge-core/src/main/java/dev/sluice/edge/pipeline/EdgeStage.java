package dev.sluice.edge.pipeline;

import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.Verdict;
import java.util.concurrent.CompletionStage;

/**
 * One step of the edge's decision, between identification (route, key, cost) and the limiter
 * (DESIGN.md "Seams"; an interceptor chain in the OkHttp manner). A stage sees an identified
 * {@link EdgeRequest} and either answers it itself or calls {@link Chain#proceed} and, if it wants,
 * changes or decorates what comes back.
 *
 * <p>Where the stages of SPEC §3.9, §3.11 and §3.12 go:
 * <ul>
 *   <li><b>escalation</b> (abusive retry loops, §3.12): before the limiter; answers a blocked key
 *       with a 429 without charging;</li>
 *   <li><b>shedder</b> (§3.9): before the limiter, so a shed request is never charged; answers 503
 *       via {@code Problems.overloaded}, or proceeds and adds an {@code ExchangeListener} that frees
 *       its concurrency slot;</li>
 *   <li><b>idempotency</b> (§3.11): after the limiter's {@code Forward}; answers a replay or a 409
 *       instead, or adds a listener that records the outcome.</li>
 * </ul>
 * The limiter itself is the chain's end.
 *
 * <p>Contract: runs on the request's event loop and must not block; the returned stage may complete
 * on another thread (the edge hops back). Thread-safe: one instance serves every connection.
 */
@FunctionalInterface
public interface EdgeStage {

    /** Decides {@code request}, usually by {@code chain.proceed(request)}. */
    CompletionStage<dev.sluice.edge.decision.Verdict> apply(EdgeRequest request, Chain chain);

    /** The rest of the stages, ending with the limiter. */
    @FunctionalInterface
    interface Chain {
        /** Runs the next stage (at the end: the limiter decision) on {@code request}. */
        CompletionStage<Verdict> proceed(EdgeRequest request);
    }
}
