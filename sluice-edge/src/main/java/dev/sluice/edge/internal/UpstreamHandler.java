package dev.sluice.edge.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;

/**
 * The last handler of a pooled upstream connection: hands the response to the exchange that holds
 * the connection. Data arriving while no exchange holds it (an idle connection) is released and the
 * connection closed: nothing on an idle HTTP/1.1 connection can be valid. Interim responses (1xx, RFC 9110
 * §15.2) are read and dropped here: the edge does not relay them, so the exchange sees the final response only.
 */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {

    private UpstreamListener listener;
    /** a 1xx head was read: its end (the decoder's empty last content) is dropped too */
    private boolean interim;

    /** The exchange that now holds this connection. */
    void attach(UpstreamListener l) {
        this.listener = l;
    }

    void detach() {
        this.listener = null;
        this.interim = false;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        UpstreamListener l = listener;
        if (l == null) {
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        if (msg instanceof HttpResponse response) {
            if (response.decoderResult().isSuccess() && response.status().code() < 200) {
                interim = true;
                ReferenceCountUtil.release(msg);
                return;
            }
            l.onUpstreamHead(response);
        } else if (interim) {
            interim = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpContent content) {
            l.onUpstreamContent(content); // takes ownership
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        if (l != null) {
            l.onUpstreamReadComplete();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        if (l != null) {
            l.onUpstreamWritabilityChanged();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        listener = null;
        if (l != null) {
            l.onUpstreamFailure(new IOException("upstream closed the connection"));
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UpstreamListener l = listener;
        listener = null;
        if (l != null) {
            l.onUpstreamFailure(cause);
        }
        ctx.close();
    }

    /** What an exchange is told about its upstream connection; called on the connection's loop. */
    interface UpstreamListener {
        void onUpstreamHead(HttpResponse head);

        /** Takes ownership of {@code content}. */
        void onUpstreamContent(HttpContent content);

        void onUpstreamWritabilityChanged();

        /** A read from the upstream socket ended: flush what was written to the client. */
        void onUpstreamReadComplete();

        /** The connection failed or closed before the exchange released it. */
        void onUpstreamFailure(Throwable cause);
    }
}
