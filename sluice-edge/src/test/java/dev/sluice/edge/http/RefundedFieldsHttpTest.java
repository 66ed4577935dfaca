package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An upstream 503 is refunded (SPEC §3.9), and the 503's own {@code RateLimit} tells what is left after the
 * refund (SPEC §2.2: every response tells what is left), the same as {@code GET /v1/usage} right after, with
 * a store that answers at once (in memory) and with one that answers later on another thread (as Redis does).
 */
@ExtendWith(NoLeaks.class)
class RefundedFieldsHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String WHOLE = "\"burst\";r=20;t=0, \"daily\";r=10000;t=0"; // nothing spent: t=0

    private static void assertRefundedFieldsOn503(Edges edge, TestUpstream upstream) {
        upstream.reply("/v1/labels", Reply.status(503));
        HttpResponse<String> r = edge.post("/v1/labels", FREE, "{}");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("{\"status\":503}"); // the upstream's body, whole
        // before the refund this said "burst";r=19 and "daily";r=9999: the charged state
        assertThat(r.headers().firstValue("RateLimit")).hasValue(WHOLE);
        assertThat(edge.get("/v1/usage", FREE).headers().firstValue("RateLimit")).hasValue(WHOLE);
    }

    @Test
    void theRefunded503ShowsThePostRefundStateWithTheInMemoryStore() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            assertRefundedFieldsOn503(edge, upstream);
            // an admitted 200 still shows the charge
            upstream.reply("/v1/labels", Reply.ok());
            assertThat(edge.post("/v1/labels", FREE, "{}").headers().firstValue("RateLimit"))
                    .hasValue("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
        }
    }

    @Test
    void theRefunded503ShowsThePostRefundStateWithAStoreThatAnswersLater() {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T12:00:00Z");
        ExecutorService elsewhere = Executors.newSingleThreadExecutor();
        try (TestUpstream upstream = new TestUpstream();
                LaterStore store = new LaterStore(new InMemoryLimiterStore(time), elsewhere);
                Edges edge = Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE), upstream.url(), time,
                        EdgeOptions.defaults().withStore(store))) {
            assertRefundedFieldsOn503(edge, upstream);
            assertThat(store.laterAnswers).isPositive();
        } finally {
            elsewhere.shutdownNow();
        }
    }

    /** An in-memory store whose asynchronous answers complete on another thread, as a network store's do. */
    private static final class LaterStore implements LimiterStore {
        private final LimiterStore inner;
        private final ExecutorService executor;
        volatile int laterAnswers;

        LaterStore(LimiterStore inner, ExecutorService executor) {
            this.inner = inner;
            this.executor = executor;
        }

        @Override
        public Decision decide(String key, Plan plan, Costs costs) {
            return inner.decide(key, plan, costs);
        }

        @Override
        public List<PolicyState> usage(String key, Plan plan) {
            return inner.usage(key, plan);
        }

        @Override
        public void refund(String key, Allowed charge) {
            inner.refund(key, charge);
        }

        @Override
        public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
            laterAnswers++;
            return CompletableFuture.supplyAsync(() -> inner.usage(key, plan), executor);
        }

        @Override
        public CompletionStage<Void> refundAsync(String key, Allowed charge) {
            return CompletableFuture.runAsync(() -> inner.refund(key, charge), executor);
        }

        @Override
        public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
            return CompletableFuture.supplyAsync(() -> inner.decide(key, plan, costs), executor);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
