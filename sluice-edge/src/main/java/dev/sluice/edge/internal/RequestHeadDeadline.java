package dev.sluice.edge.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;

/**
 * The deadline of an HTTP/1.1 request head (slowloris): once the first byte of a head has arrived, the whole
 * head must arrive within {@code request-head-timeout}; more bytes do not extend it (the idle timeout, which
 * every byte resets, cannot bound a head sent one byte every few seconds). Placed before the HTTP/1.1 codec,
 * it sees bytes; the {@link KeepAliveHandler} after the codec tells it when a head was decoded
 * ({@link #headReceived()}) and when the next one is awaited ({@link #expectHead()}). On expiry it fires
 * {@link #EXPIRED} down the pipeline, and the {@link EdgeHandler} answers 408 and closes (RFC 9110 §15.5.9).
 *
 * <p>A head that arrives in one read costs two field writes: the timer is started only when a head is still
 * incomplete at the end of a read. Between requests of a kept-alive connection the idle timeout applies.
 * Event-loop only.
 */
final class RequestHeadDeadline extends ChannelInboundHandlerAdapter {

    /** The user event fired when a head did not complete in time. */
    static final Object EXPIRED = new Object() {
        @Override
        public String toString() {
            return "RequestHeadDeadline.EXPIRED";
        }
    };

    private final Duration timeout;
    private StallTimer timer;
    /** the next byte starts a head */
    private boolean awaiting = true;
    /** a head has started and is not complete */
    private boolean pending;

    RequestHeadDeadline(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = new StallTimer(ctx.executor(), timeout, () -> {
            if (pending) {
                ctx.fireUserEventTriggered(EXPIRED);
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (awaiting) {
            awaiting = false;
            pending = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (pending && !timer.running()) {
            timer.start(); // the head spans reads: from now on it has until the deadline
        }
        ctx.fireChannelReadComplete();
    }

    /** A whole head was decoded: no deadline until the next one is awaited. */
    void headReceived() {
        awaiting = false;
        pending = false;
        if (timer.running()) {
            timer.stop();
        }
    }

    /** The previous exchange is over: the next byte starts the next head. */
    void expectHead() {
        awaiting = true;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.stop();
        ctx.fireChannelInactive();
    }
}
