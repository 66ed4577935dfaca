package dev.sluice.edge.decision;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.ProtectionConfig;
import dev.sluice.edge.escalation.RetryLoopEscalation;
import dev.sluice.edge.idempotency.IdempotencyStage;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The edge's decider with its protection stages, assembled once for every server that runs it (the
 * Netty edge, the Spring Boot filter): escalation first (a blocked key costs nothing more), then
 * idempotent replays (they need no upstream capacity), then the criticality shedder (a shed request
 * is never charged), then the caller's own stages, then the limiter (SPEC §3.9, §3.11, §3.12).
 *
 * @param decider the decision function
 * @param escalation the retry-loop escalation stage
 * @param shedder the criticality shedder (its limit and in-flight count are worth a gauge)
 */
public record ProtectedDecider(EdgeDecider decider, RetryLoopEscalation escalation, CriticalityShedder shedder) {

    /**
     * @param config the configuration (its {@code protection} sections)
     * @param store the limiter store
     * @param idempotencyStore where idempotency records live
     * @param time the clock of the stages and soft-limit events
     * @param capacity the concurrency the shedder's default limit is derived from (the upstream pool
     *     size of the edge; the servlet container's worker threads in an application)
     * @param defaultLease the idempotency claim lease when the configuration sets none: longer than a
     *     request can take
     * @param extraStages the caller's stages, run after the protection stages
     */
    public static ProtectedDecider assemble(EdgeConfig config, LimiterStore store, IdempotencyStore idempotencyStore,
            TimeSource time, int capacity, Duration defaultLease, List<EdgeStage> extraStages) {
        return assemble(config, store, idempotencyStore, time, capacity, defaultLease, extraStages, Optional.empty());
    }

    /**
     * {@link #assemble(EdgeConfig, LimiterStore, IdempotencyStore, TimeSource, int, Duration, List)} with a
     * source of the keys the file does not list.
     *
     * @param keySource a key store's cache (see {@link KeySource}), or empty
     */
    public static ProtectedDecider assemble(EdgeConfig config, LimiterStore store, IdempotencyStore idempotencyStore,
            TimeSource time, int capacity, Duration defaultLease, List<EdgeStage> extraStages,
            Optional<KeySource> keySource) {
        AtomicReference<EdgeDecider> deciderRef = new AtomicReference<>();
        Supplier<Problems> problems = () -> deciderRef.get().rules().problems();
        ProtectionConfig protection = config.protection();
        RetryLoopEscalation escalation = new RetryLoopEscalation(protection.escalation(), time, problems,
                (key, policy, seconds) -> deciderRef.get().heldFields(key, policy, seconds));
        Duration lease = protection.idempotency().lease().isZero() ? defaultLease : protection.idempotency().lease();
        IdempotencyStage idempotency = new IdempotencyStage(protection.idempotency(), idempotencyStore, lease, time,
                problems);
        CriticalityShedder shedder = new CriticalityShedder(protection.sheddingFor(capacity), time, problems);
        List<EdgeStage> stages = new ArrayList<>();
        stages.add(escalation);
        stages.add(idempotency);
        stages.add(shedder);
        stages.addAll(extraStages);
        EdgeDecider decider = new EdgeDecider(new EdgeRules(config), store, time, stages, keySource);
        deciderRef.set(decider);
        return new ProtectedDecider(decider, escalation, shedder);
    }
}
