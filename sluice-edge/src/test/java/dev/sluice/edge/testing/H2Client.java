package dev.sluice.edge.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 client with prior knowledge (h2c, RFC 9113 §3.3) built on Netty's frame codec: one
 * connection, one stream per request, and full control of the frames (so a test can send HEADERS
 * announcing a body and then stall). Results are waited for with a bound.
 */
public final class H2Client implements AutoCloseable {

    /** What came back on one stream. */
    public record Result(Http2Headers headers, String body, Long resetCode) {
        public int status() {
            return headers == null ? -1 : Integer.parseInt(headers.status().toString());
        }

        public String header(String name) {
            CharSequence v = headers == null ? null : headers.get(name);
            return v == null ? null : v.toString();
        }
    }

    /** A GOAWAY the server sent: the last stream it says it processed, and why. */
    public record GoAway(int lastStreamId, long errorCode) {}

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final CompletableFuture<GoAway> goAway = new CompletableFuture<>();
    private final Channel connection;

    public H2Client(int port) {
        this(port, Http2Settings.defaultSettings());
    }

    /** A client announcing {@code settings} (e.g. {@code initialWindowSize(0)}: it takes no DATA). */
    public H2Client(int port, Http2Settings settings) {
        connection = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // sends what it is asked to, even past the server's MAX_HEADER_LIST_SIZE (a hostile client)
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().encoderIgnoreMaxHeaderListSize(true)
                                .initialSettings(settings).build());
                        ch.pipeline().addLast(new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                if (msg instanceof Http2GoAwayFrame g) {
                                    goAway.complete(new GoAway(g.lastStreamId(), g.errorCode()));
                                }
                                ReferenceCountUtil.release(msg);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close(); // the server ended the connection (a test's point, often)
                            }
                        });
                    }
                }).connect("127.0.0.1", port).syncUninterruptibly().channel();
    }

    /** A stream on which a request is being sent. */
    public final class Stream {
        private final Http2StreamChannel channel;
        private final CompletableFuture<Result> result;

        private Stream(Http2StreamChannel channel, CompletableFuture<Result> result) {
            this.channel = channel;
            this.result = result;
        }

        /** Sends DATA; ends the stream when {@code end}. */
        public Stream data(byte[] bytes, boolean end) {
            channel.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(bytes), end)).syncUninterruptibly();
            return this;
        }

        /**
         * Sends DATA without waiting for the write: the server may already have answered and reset the
         * stream (then the frame is dropped, which is the point of the test).
         */
        public Stream dataWithoutWaiting(byte[] bytes) {
            channel.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(bytes), false));
            return this;
        }

        /** Resets the stream (RST_STREAM with {@code CANCEL}): the client gives up on the request. */
        public Stream cancel() {
            channel.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)).syncUninterruptibly();
            return this;
        }

        /** Waits (at most 10 s) for the stream to close: both sides ended it, or one reset it. */
        public Result await() {
            return result.orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    /**
     * Opens a stream and sends its HEADERS.
     *
     * @param endStream true for a request without body
     */
    public Stream request(String method, String path, Http2Headers extra, boolean endStream) {
        CompletableFuture<Result> result = new CompletableFuture<>();
        Http2StreamChannel ch = new Http2StreamChannelBootstrap(connection).handler(new Recorder(result)).open()
                .syncUninterruptibly().getNow();
        Http2Headers h = new DefaultHttp2Headers().method(method).path(path).scheme("http").authority("localhost");
        if (extra != null) {
            h.add(extra);
        }
        ch.writeAndFlush(new DefaultHttp2HeadersFrame(h, endStream)).syncUninterruptibly();
        return new Stream(ch, result);
    }

    /** Waits (at most 10 s) for the server's GOAWAY. */
    public GoAway awaitGoAway() {
        return goAway.orTimeout(10, TimeUnit.SECONDS).join();
    }

    /** A GET and its result. */
    public Result get(String path, String bearer) {
        Http2Headers h = new DefaultHttp2Headers();
        if (bearer != null) {
            h.add("authorization", "Bearer " + bearer);
        }
        return request("GET", path, h, true).await();
    }

    private static final class Recorder extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Result> result;
        private Http2Headers headers;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private Long resetCode;

        Recorder(CompletableFuture<Result> result) {
            this.result = result;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame hf) {
                    if (headers == null || headers.status() != null && headers.status().charAt(0) == '1') {
                        headers = hf.headers();
                    }
                } else if (msg instanceof Http2DataFrame df) {
                    ByteBuf b = df.content();
                    byte[] bytes = new byte[b.readableBytes()];
                    b.readBytes(bytes);
                    body.writeBytes(bytes);
                } else if (msg instanceof Http2ResetFrame rf) {
                    resetCode = rf.errorCode();
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // Http2MultiplexHandler delivers RST_STREAM as a user event (it is not flow controlled)
            if (evt instanceof Http2ResetFrame rf) {
                resetCode = rf.errorCode();
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // the stream is closed: both sides ended it, or one reset it
            result.complete(new Result(headers, body.toString(StandardCharsets.UTF_8), resetCode));
        }
    }

    @Override
    public void close() {
        connection.close().syncUninterruptibly();
        group.shutdownGracefully(50, 1_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }
}
