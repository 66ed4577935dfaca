package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.EdgeRules;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.ManualTimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTP/1.1 answers are flushed once per socket read, not once per response: the answers to pipelined
 * requests that arrived in one read (RFC 9112 §9.3) leave in one write to the socket.
 */
@ExtendWith(NoLeaks.class)
class FlushPerReadTest {

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE);
    private final EdgeContext edge = new EdgeContext(
            new EdgeDecider(new EdgeRules(config), new InMemoryLimiterStore(time), time, List.of()), null,
            new EdgeMetrics(new SimpleMeterRegistry()), new SoftLimitNotifier(w -> { }), time, config.listen());

    /** Counts the flushes that reach the socket. */
    private static final class Flushes extends ChannelOutboundHandlerAdapter {
        int count;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            count++;
            ctx.flush();
        }
    }

    @Test
    void threePipelinedRequestsInOneReadAreAnsweredInOneFlush() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = new EmbeddedChannel(flushes, new ProtocolDetector(edge));
        String get = "GET /v1/labels HTTP/1.1\r\nHost: edge\r\n\r\n"; // no key: the decider answers inline
        ch.writeInbound(Unpooled.copiedBuffer(get + get + get, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        assertThat(out.toString().split("HTTP/1.1 ", -1)).hasSize(4);
        assertThat(flushes.count).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void aFlushOutsideAReadGoesOutAtOnce() {
        Flushes flushes = new Flushes();
        EmbeddedChannel ch = new EmbeddedChannel(flushes, new ProtocolDetector(edge));
        ch.writeInbound(Unpooled.copiedBuffer("GET /v1/labels HTTP/1.1\r\nHost: edge\r\n\r\n",
                StandardCharsets.US_ASCII));
        int afterRead = flushes.count;
        ch.writeAndFlush(Unpooled.copiedBuffer("x", StandardCharsets.US_ASCII)); // not during a read
        assertThat(flushes.count).isEqualTo(afterRead + 1);
        ch.finishAndReleaseAll();
    }
}
