package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.metrics.EdgeMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2Error;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-connection pieces of the SPEC §3.9 bounds, without a network. */
class ConnectionBoundsTest {

    @Test
    void theGateLetsMaxStreamsHoldAndTheRestWaitInOrder() {
        UpstreamStreamGate gate = new UpstreamStreamGate(2);
        List<String> entered = new ArrayList<>();
        Runnable third = () -> entered.add("third");
        Runnable fourth = () -> entered.add("fourth");

        assertThat(gate.enter(() -> { })).isTrue();
        assertThat(gate.enter(() -> { })).isTrue();
        assertThat(gate.enter(third)).isFalse();
        assertThat(gate.enter(fourth)).isFalse();
        assertThat(gate.waiting()).isEqualTo(2);

        gate.leave(); // the place passes to the first waiter
        assertThat(entered).containsExactly("third");
        assertThat(gate.held()).isEqualTo(2);
        gate.cancel(fourth); // its request ended while it waited
        gate.leave();
        gate.leave();
        assertThat(entered).containsExactly("third");
        assertThat(gate.held()).isZero();
    }

    @Test
    void theEdgesOwnResetsAreNotCountedAsAClientsFlood() {
        // RFC 9113 §5.1.2: a stream over SETTINGS_MAX_CONCURRENT_STREAMS is refused, unprocessed
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.REFUSED_STREAM.code())).isFalse();
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.NO_ERROR.code())).isFalse();
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.CANCEL.code())).isFalse();
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.INTERNAL_ERROR.code())).isFalse();
        // what a client's bad frames make the edge send ("MadeYouReset")
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.PROTOCOL_ERROR.code())).isTrue();
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.STREAM_CLOSED.code())).isTrue();
        assertThat(EdgeHttp2FrameCodec.ClientCausedResets.counted(Http2Error.FLOW_CONTROL_ERROR.code())).isTrue();
    }

    @Test
    void failedAcceptsAreCountedAndPauseAcceptingForASecond() {
        // out of file descriptors (EMFILE): each failed accept is counted; accepting pauses 1 s instead of
        // failing again at once (and logging each failure with its stack trace)
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EdgeContext edge = new EdgeContext(null, null, new EdgeMetrics(registry), null, null, null, null);
        EmbeddedChannel server = new EmbeddedChannel(ServerInitializers.acceptErrors(edge));
        for (int i = 0; i < 3; i++) {
            server.pipeline().fireExceptionCaught(new IOException("Too many open files"));
        }
        assertThat(registry.get("sluice.edge.rejected.connections").tag("reason", "accept_failed").counter().count())
                .isEqualTo(3.0);
        assertThat(server.config().isAutoRead()).isFalse();
        server.advanceTimeBy(500, TimeUnit.MILLISECONDS); // the embedded loop's clock also moves in real time
        server.runScheduledPendingTasks();
        assertThat(server.config().isAutoRead()).isFalse();
        server.advanceTimeBy(600, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertThat(server.config().isAutoRead()).isTrue();
        // anything else is not an accept failure: passed on
        server.pipeline().fireExceptionCaught(new IllegalStateException("a bug"));
        assertThatThrownBy(server::checkException).isInstanceOf(IllegalStateException.class);
        server.finishAndReleaseAll();
    }
}
