package dev.sluice.edge.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;

/**
 * Reads the frame boundaries of an h2c connection (RFC 9113 §4.1) as its bytes pass to Netty's HTTP/2 codec,
 * without changing them, for two things Netty does not do:
 * <ul>
 *   <li>the slowloris deadline of HTTP/2: a header block (HEADERS or PUSH_PROMISE and its CONTINUATIONs,
 *       RFC 9113 §4.3) or any other frame but DATA, once begun, must be complete within
 *       {@code request-head-timeout}; bytes arriving do not extend it. Netty bounds a block's size
 *       ({@code MAX_HEADER_LIST_SIZE}) and its number of small CONTINUATION frames, not its time. On expiry the
 *       connection is closed (a GOAWAY first, through the codec) and counted. A DATA frame is a body: its pace
 *       is the body-idle timeout's business.</li>
 *   <li>the stream of the first header block whose encoded bytes pass Netty's limit for reading one
 *       ({@link #oversizedHeaderBlockStreamId()}), which the codec does not say when it gives up on the
 *       connection for it ({@link EdgeHttp2FrameCodec}). The watch reads each buffer before the codec, so
 *       "the block open now" may already be a later one; the size decides which block failed.</li>
 * </ul>
 * Event-loop only. Costs a few comparisons per frame, not per byte.
 */
final class Http2FrameWatch extends ChannelInboundHandlerAdapter {

    private static final int PREFACE_BYTES = 24;
    private static final int FRAME_HEADER_BYTES = 9;
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int PUSH_PROMISE = 0x5;
    private static final int CONTINUATION = 0x9;
    private static final int END_HEADERS = 0x4;

    private final Duration timeout;
    private final Runnable onExpiry;
    private final long blockLimitBytes;
    private StallTimer deadline;
    private int prefaceLeft = PREFACE_BYTES;
    private final byte[] header = new byte[FRAME_HEADER_BYTES];
    private int headerHave;
    private int payloadLeft;
    private int type;
    private int flags;
    private boolean blockOpen;
    private int blockStreamId;
    private long blockBytes;
    private int oversizedStreamId;
    private boolean discarding;

    /**
     * @param onExpiry what to do when a frame or header block did not complete in time (count it); the
     *     connection is closed after it
     * @param maxHeaderListSize the codec's {@code SETTINGS_MAX_HEADER_LIST_SIZE}: Netty stops reading a block
     *     whose encoded bytes pass 1.25 times it
     */
    Http2FrameWatch(Duration timeout, Runnable onExpiry, long maxHeaderListSize) {
        this.timeout = timeout;
        this.onExpiry = onExpiry;
        this.blockLimitBytes = maxHeaderListSize + (maxHeaderListSize >>> 2); // Netty's maxHeaderListSizeGoAway
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = new StallTimer(ctx.executor(), timeout, () -> {
            if (pending()) {
                onExpiry.run();
                ctx.channel().close(); // through the codec: GOAWAY, then close
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (discarding) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof ByteBuf b) {
            scan(b);
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * From now on inbound bytes are read and dropped before the codec (it can decode nothing more: the
     * connection is ending), so the peer's last frames do not turn the close into a reset that would discard
     * the answer it has not read yet.
     */
    void discardInbound() {
        discarding = true;
        if (deadline.running()) {
            deadline.stop();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        boolean pending = !discarding && pending();
        if (pending && !deadline.running()) {
            deadline.start();
        } else if (!pending && deadline.running()) {
            deadline.stop();
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * The stream of the first header block whose frames carried more than 1.25 times the codec's
     * {@code MAX_HEADER_LIST_SIZE} (counting padding too, so never fewer bytes than Netty counts), or 0 when
     * none did.
     */
    int oversizedHeaderBlockStreamId() {
        return oversizedStreamId;
    }

    private boolean pending() {
        return headerHave > 0 || blockOpen || (payloadLeft > 0 && type != DATA);
    }

    private void scan(ByteBuf b) {
        int i = b.readerIndex();
        int end = b.writerIndex();
        while (i < end) {
            if (prefaceLeft > 0) {
                int n = Math.min(prefaceLeft, end - i);
                prefaceLeft -= n;
                i += n;
            } else if (payloadLeft > 0) {
                int n = Math.min(payloadLeft, end - i);
                payloadLeft -= n;
                i += n;
                if (payloadLeft == 0) {
                    frameEnded();
                }
            } else {
                header[headerHave++] = b.getByte(i++);
                if (headerHave == FRAME_HEADER_BYTES) {
                    headerHave = 0;
                    frameBegun();
                }
            }
        }
    }

    private void frameBegun() {
        payloadLeft = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        type = header[3] & 0xff;
        flags = header[4] & 0xff;
        if (type == HEADERS || type == PUSH_PROMISE) {
            blockOpen = true;
            blockStreamId = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16) | ((header[7] & 0xff) << 8)
                    | (header[8] & 0xff);
            blockBytes = 0;
        }
        if (type == HEADERS || type == PUSH_PROMISE || type == CONTINUATION) {
            blockBytes += payloadLeft;
            if (blockBytes > blockLimitBytes && oversizedStreamId == 0) {
                oversizedStreamId = blockStreamId;
            }
        }
        if (payloadLeft == 0) {
            frameEnded();
        }
    }

    private void frameEnded() {
        if ((type == HEADERS || type == PUSH_PROMISE || type == CONTINUATION) && (flags & END_HEADERS) != 0) {
            blockOpen = false;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        deadline.stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        deadline.stop();
        ctx.fireChannelInactive();
    }
}
