package dev.sluice.edge.internal;

import dev.sluice.edge.config.ListenConfig;
import dev.sluice.edge.route.RequestPaths;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.Iterator;

/**
 * Request framing and validation, between the HTTP codec and the exchange: each request head is checked before
 * anything is decided for it, and either passed on (its target rewritten to the normal path) or replaced by a
 * {@link Refusal} that the exchange handler answers in turn (so a refused pipelined request is answered after
 * the requests before it). After a refusal the connection (HTTP/1.1) or stream (HTTP/2) is over: every later
 * message is released here.
 *
 * <p>Refused, in this order:
 * <ol>
 *   <li>a head the decoder could not read: 431 (header section over {@code max-header-bytes}), 414 (request
 *       line over {@code max-request-line-bytes}), otherwise 400;</li>
 *   <li>more than {@code max-header-count} fields: 431;</li>
 *   <li>HTTP/1.1 only: a version other than 1.x, 505 (RFC 9110 §15.6.6);</li>
 *   <li>a target with a control byte, an encoded {@code /} or {@code \}, or a broken escape: 400
 *       ({@link RequestPaths});</li>
 *   <li>HTTP/1.1 only: a missing, repeated or invalid {@code Host} in an HTTP/1.1 request, 400 (RFC 9112 §3.2);
 *       a transfer coding other than chunked, 501 (RFC 9112 §6.1). Netty's decoder itself refuses
 *       Content-Length with Transfer-Encoding, chunked twice, whitespace before a colon and Transfer-Encoding
 *       in HTTP/1.0 (decoder failure, 400).</li>
 * </ol>
 * Event-loop only; holds no buffer.
 */
final class RequestValidator extends ChannelInboundHandlerAdapter {

    /**
     * A request refused before any decision; the handler after this one writes it and ends the connection or
     * stream.
     *
     * @param status the HTTP status
     * @param code the problem's {@code code} (docs/contract.md)
     * @param title the problem's title
     * @param detail the problem's detail
     * @param reason the {@code reason} tag of {@code sluice_edge_rejected_requests_total}
     */
    record Refusal(int status, String code, String title, String detail, String reason) {}

    private final ListenConfig listen;
    private final boolean stream;
    private boolean refused;

    /** @param stream true on an HTTP/2 stream channel, false on an HTTP/1.1 connection */
    RequestValidator(ListenConfig listen, boolean stream) {
        this.listen = listen;
        this.stream = stream;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            Refusal r = check(request);
            if (r != null) {
                refused = true;
                ReferenceCountUtil.release(msg); // an HTTP/2 request carried whole holds its body
                ctx.fireChannelRead(r);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** The refusal of {@code request}, or null when it may be decided on (its target then normalised). */
    Refusal check(HttpRequest request) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpHeaderException) {
                return new Refusal(431, "request_header_fields_too_large", "Request header fields too large",
                        "The request's header section is larger than " + listen.maxHeaderBytes() + " bytes.",
                        "header_too_large");
            }
            if (cause instanceof TooLongHttpLineException) {
                return new Refusal(414, "uri_too_long", "URI too long", "The request line is longer than "
                        + listen.maxRequestLineBytes() + " bytes.", "request_line_too_long");
            }
            return new Refusal(400, "bad_request", "Bad request", "The request is not valid HTTP/1.1.", "malformed");
        }
        if (request.headers().size() > listen.maxHeaderCount()) {
            return new Refusal(431, "request_header_fields_too_large", "Request header fields too large",
                    "The request has more than " + listen.maxHeaderCount() + " header fields.", "too_many_headers");
        }
        if (!stream && request.protocolVersion().majorVersion() != 1) {
            // RFC 9110 §15.6.6: HTTP/9.9 (or 2.0 in an HTTP/1 request line) is not a version the edge speaks
            return new Refusal(505, "http_version_not_supported", "HTTP version not supported",
                    "The edge speaks HTTP/1.0, HTTP/1.1 and HTTP/2, not " + request.protocolVersion().text() + ".",
                    "http_version");
        }
        Refusal target = normaliseTarget(request);
        if (target != null) {
            return target;
        }
        return stream ? null : framingAndHost(request);
    }

    /**
     * Rewrites the request's target to the path it is routed, costed and forwarded on ({@link RequestPaths}),
     * the query untouched, so the upstream resolves what the edge decided on; or refuses it.
     */
    private static Refusal normaliseTarget(HttpRequest request) {
        String uri = request.uri();
        String raw = HttpMessages.path(uri);
        RequestPaths.Result r = RequestPaths.hasControl(uri)
                ? new RequestPaths.Refused("The request target holds a control character.")
                : RequestPaths.normalize(raw);
        if (r instanceof RequestPaths.Refused refusedTarget) {
            return new Refusal(400, "bad_request", "Bad request", refusedTarget.detail(), "bad_target");
        }
        String path = ((RequestPaths.Normal) r).path();
        if (!path.equals(raw)) {
            String query = HttpMessages.query(uri);
            request.setUri(query.isEmpty() && uri.indexOf('?') < 0 ? path : path + "?" + query);
        }
        return null;
    }

    /** RFC 9112 §3.2 (Host) and §6.1 (transfer codings the edge can decode). */
    private static Refusal framingAndHost(HttpRequest request) {
        HttpHeaders h = request.headers();
        if (request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            Iterator<String> hosts = h.valueStringIterator(HttpHeaderNames.HOST);
            String problem = null;
            if (!hosts.hasNext()) {
                problem = "An HTTP/1.1 request needs a Host field.";
            } else if (!validHost(hosts.next())) {
                problem = "The Host field is not a valid host and port.";
            } else if (hosts.hasNext()) {
                problem = "The request has more than one Host field.";
            }
            if (problem != null) {
                return new Refusal(400, "bad_request", "Bad request", problem, "bad_host");
            }
        }
        if (h.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            for (String line : h.getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
                for (String coding : line.split(",")) {
                    String c = coding.strip();
                    if (!c.isEmpty() && !c.equalsIgnoreCase("chunked")) {
                        return new Refusal(501, "transfer_coding_not_implemented", "Not implemented",
                                "The edge cannot decode the transfer coding \"" + c + "\"; send the body with "
                                        + "Content-Length or chunked alone.", "transfer_coding");
                    }
                }
            }
        }
        return null;
    }

    /**
     * RFC 9112 §3.2: {@code uri-host [ ":" port ]} (RFC 3986 reg-name, IPv4 or a bracketed IP literal; empty
     * is allowed). A comma is refused: it is what two Host lines folded into one look like.
     */
    static boolean validHost(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "-._~!$&'()*+;=%:[]".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
