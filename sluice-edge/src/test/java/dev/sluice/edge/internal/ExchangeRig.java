package dev.sluice.edge.internal;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.EdgeRules;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.config.UpstreamConfig;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.edge.testing.Edges;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.ManualTimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * An {@link EdgeHandler} in an {@link EmbeddedChannel} (the client's HTTP/1.1 connection, behind its
 * {@link KeepAliveHandler}, or an HTTP/2 stream), its decisions taken
 * by the real {@link EdgeDecider} on the Shiplane configuration when the test says so, and its upstream
 * connections {@link EmbeddedChannel}s ending in an {@link UpstreamHandler}: what the exchange writes upstream
 * is read from their outbound side, the upstream's answer is written to their inbound side. Every transition
 * of every exchange is recorded.
 */
final class ExchangeRig implements AutoCloseable {

    /** A Free-plan key (SPEC §2.1). */
    static final String KEY = "sk_test_free_1";

    record Move(ProxyExchange.State from, ProxyExchange.Event event, ProxyExchange.State to) {
    }

    final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE);
    final UpstreamConfig upstreamConfig = config.upstream();
    /** the usage read after a refund waits for this when {@link #slowStore} (a shared store's round trip) */
    final CompletableFuture<Void> storeReply = new CompletableFuture<>();
    final EdgeDecider decider;
    final EdgeContext edge;
    final List<Move> moves = new ArrayList<>();
    final List<RequestHead> heads = new ArrayList<>();
    final List<CompletableFuture<Verdict>> verdicts = new ArrayList<>();
    final List<Promise<Channel>> acquires = new ArrayList<>();
    final List<EmbeddedChannel> upstreams = new ArrayList<>();
    /** (channel, reusable) for each connection given back */
    final List<Object[]> released = new ArrayList<>();
    final EmbeddedChannel client;
    final EdgeHandler handler;

    ExchangeRig(boolean stream, UpstreamStreamGate gate, boolean slowStore) {
        InMemoryLimiterStore memory = new InMemoryLimiterStore(time);
        LimiterStore store = slowStore ? new SlowUsage(memory, storeReply) : memory;
        decider = new EdgeDecider(new EdgeRules(config), store, time, List.of());
        edge = new EdgeContext(decider, null, new EdgeMetrics(registry), new SoftLimitNotifier(w -> { }), time,
                config.listen());
        Upstreams pool = new Upstreams() {
            @Override
            public UpstreamConfig config() {
                return upstreamConfig;
            }

            @Override
            public Future<Channel> acquire(EventLoop loop) {
                Promise<Channel> p = loop.newPromise();
                acquires.add(p);
                return p;
            }

            @Override
            public void release(Channel channel, boolean reusable) {
                released.add(new Object[] {channel, reusable});
                if (!reusable) {
                    channel.close();
                }
            }
        };
        handler = new EdgeHandler(edge, stream, gate, pool, head -> {
            heads.add(head);
            CompletableFuture<Verdict> v = new CompletableFuture<>();
            verdicts.add(v);
            return v;
        }, (from, event, to) -> moves.add(new Move(from, event, to)));
        client = stream ? new EmbeddedChannel(handler)
                : new EmbeddedChannel(new KeepAliveHandler(config.listen().drainBoundBytes(), null), handler);
    }

    ExchangeRig() {
        this(false, null, false);
    }

    ProxyExchange exchange() {
        return handler.exchange();
    }

    ProxyExchange.State state() {
        return handler.exchange().state();
    }

    // ---- the client ------------------------------------------------------------------------------

    static HttpRequest request(HttpMethod method, String path, String key, long contentLength) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, path);
        r.headers().set(HttpHeaderNames.HOST, "edge.example");
        if (key != null) {
            r.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + key);
        }
        if (contentLength >= 0) {
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, contentLength);
        }
        return r;
    }

    /** {@code POST /v1/labels} (CRITICAL, cost 1) with a body of {@code contentLength} bytes announced. */
    static HttpRequest post(long contentLength) {
        return request(HttpMethod.POST, "/v1/labels", KEY, contentLength);
    }

    static HttpContent part(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    static LastHttpContent last(String text) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    void send(Object... messages) {
        for (Object m : messages) {
            client.writeInbound(m);
        }
    }

    // ---- the decision --------------------------------------------------------------------------

    /** Completes the newest pending decision with the real decider's verdict, changed by {@code change}. */
    void decide(UnaryOperator<Verdict> change) {
        RequestHead head = heads.get(heads.size() - 1);
        Verdict v = decider.decide(head).toCompletableFuture().join();
        verdicts.get(verdicts.size() - 1).complete(change.apply(v));
        client.runPendingTasks();
    }

    void decide() {
        decide(v -> v);
    }

    void decide(Verdict v) {
        verdicts.get(verdicts.size() - 1).complete(v);
        client.runPendingTasks();
    }

    // ---- the upstream --------------------------------------------------------------------------

    /** Gives the newest pending acquisition a fresh upstream connection; returns it. */
    EmbeddedChannel connect() {
        EmbeddedChannel up = new EmbeddedChannel(new UpstreamHandler());
        upstreams.add(up);
        acquires.get(acquires.size() - 1).setSuccess(up);
        return up;
    }

    void failConnect(Throwable cause) {
        acquires.get(acquires.size() - 1).setFailure(cause);
    }

    /** Advances the client's loop clock by {@code millis} and runs what is due. */
    void advance(long millis) {
        client.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        client.runScheduledPendingTasks();
    }

    /** Releases whatever is left on every channel. */
    @Override
    public void close() {
        client.finishAndReleaseAll();
        for (EmbeddedChannel up : upstreams) {
            up.finishAndReleaseAll();
        }
    }

    /** A limiter store whose usage read (after a refund) answers once the test says so. */
    private static final class SlowUsage implements LimiterStore {
        private final LimiterStore store;
        private final CompletableFuture<Void> reply;

        SlowUsage(LimiterStore store, CompletableFuture<Void> reply) {
            this.store = store;
            this.reply = reply;
        }

        @Override
        public Decision decide(String key, Plan plan, Costs costs) {
            return store.decide(key, plan, costs);
        }

        @Override
        public List<PolicyState> usage(String key, Plan plan) {
            return store.usage(key, plan);
        }

        @Override
        public void refund(String key, Allowed charge) {
            store.refund(key, charge);
        }

        @Override
        public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
            return reply.thenApply(x -> store.usage(key, plan));
        }
    }
}
