package dev.sluice.edge.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The HTTP/1.1 server codec of a client connection: Netty's request decoder and response encoder, paired as
 * Netty's {@code HttpServerCodec} pairs them (each response is matched with its request's method, in order:
 * the answer to {@code HEAD} carries no body, a {@code 2xx} to {@code CONNECT} no {@code Transfer-Encoding};
 * a request framed by both {@code Transfer-Encoding: chunked} and {@code Content-Length} closes the connection
 * after its response; an interim {@code 1xx} takes no method), plus one more message: an {@link Http1Answer}, the edge's own response, whose bytes are
 * written directly (see there). The last answer's bytes are kept for the connection: the same response in the
 * same {@code Date} second (a key retrying inside its {@code Retry-After} is sent the escalation stage's one
 * 429 per second) is a copy of them into a pooled buffer, not an encoding.
 *
 * <p>Buffers: an answer's buffer is allocated here and handed to the transport, which releases it; the kept
 * bytes are a plain array. Event-loop only.
 */
final class Http1Codec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

    /** the methods of the requests not yet answered, oldest first */
    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>(4);
    /** close once the current response is written (a request with both Transfer-Encoding and Content-Length) */
    private boolean closeAfterResponse;

    Http1Codec(HttpDecoderConfig config) {
        init(new RequestDecoder(config), new ResponseEncoder());
    }

    private HttpMethod nextMethod() {
        HttpMethod m = methods.poll();
        return m == null ? HttpMethod.GET : m;
    }

    private final class RequestDecoder extends HttpRequestDecoder {

        RequestDecoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int before = out.size();
            super.decode(ctx, buffer, out);
            for (int i = before; i < out.size(); i++) {
                if (out.get(i) instanceof HttpRequest request) {
                    methods.add(request.method());
                }
            }
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            super.handleTransferEncodingChunkedWithContentLength(message);
            closeAfterResponse = true; // RFC 9112 §6.1: the framing was ambiguous; nothing after it is trusted
        }
    }

    private final class ResponseEncoder extends HttpResponseEncoder {

        private HttpMethod method = HttpMethod.GET;
        /** the last answer encoded here and its bytes: reused for the same response, date and close */
        private Http1Answer lastAnswer;
        private Http1Answer.Encoded lastBytes;

        @Override
        public boolean acceptOutboundMessage(Object msg) throws Exception {
            return msg instanceof Http1Answer || super.acceptOutboundMessage(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            boolean last = msg instanceof LastHttpContent || msg instanceof Http1Answer;
            if (closeAfterResponse && last) {
                closeAfterResponse = false;
                promise = promise.unvoid().addListener(ChannelFutureListener.CLOSE);
            }
            if (msg instanceof Http1Answer answer) {
                if (!Http1Answer.encodable(answer.response())) {
                    super.write(ctx, answer.toNetty(), promise);
                    return;
                }
                method = nextMethod();
                Http1Answer.Encoded encoded = encoded(answer);
                int length = HttpMethod.HEAD.equals(method) ? encoded.headLength() : encoded.bytes().length;
                ByteBuf buf = ctx.alloc().buffer(length);
                buf.writeBytes(encoded.bytes(), 0, length);
                ctx.write(buf, promise);
                return;
            }
            super.write(ctx, msg, promise);
        }

        private Http1Answer.Encoded encoded(Http1Answer answer) {
            Http1Answer kept = lastAnswer;
            // by identity: the escalation stage's 429 is one instance per key and second, DateField's value one
            // instance per second
            if (kept != null && kept.response() == answer.response() && kept.date() == answer.date()
                    && kept.close() == answer.close()) {
                return lastBytes;
            }
            Http1Answer.Encoded encoded = answer.encode();
            lastAnswer = answer;
            lastBytes = encoded;
            return encoded;
        }

        @Override
        protected void sanitizeHeadersBeforeEncode(HttpResponse msg, boolean isAlwaysEmpty) {
            if (!isAlwaysEmpty && HttpMethod.CONNECT.equals(method) && msg.status().codeClass() == HttpStatusClass.SUCCESS) {
                msg.headers().remove(HttpHeaderNames.TRANSFER_ENCODING); // RFC 9110 §9.3.6
                return;
            }
            super.sanitizeHeadersBeforeEncode(msg, isAlwaysEmpty);
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            if (msg.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                // a 1xx (100 Continue) answers no request: the final response after it takes the method
                return super.isContentAlwaysEmpty(msg);
            }
            method = nextMethod();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }
    }
}
