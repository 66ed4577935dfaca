package dev.sluice.edge.internal;

import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.LimitFields;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Builds the messages the edge writes: its own responses, and the proxied request and response heads. */
final class HttpMessages {

    /** RFC 9110 §7.6.1 connection-specific fields, and the HTTP/2 bridge's extension fields. */
    private static final List<String> HOP_BY_HOP = List.of("connection", "keep-alive", "proxy-connection",
            "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade",
            "http2-settings");

    private HttpMessages() {
    }

    /**
     * A complete response from an {@link EdgeResponse}, with {@code Date} (RFC 9110 §6.6.1) first and
     * {@code Content-Length}.
     */
    static FullHttpResponse toNetty(EdgeResponse r, CharSequence date) {
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                Unpooled.wrappedBuffer(r.body()));
        HttpHeaders h = resp.headers();
        h.add(HttpHeaderNames.DATE, date);
        for (Header header : r.headers()) {
            h.add(header.name(), header.value());
        }
        h.set(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
        return resp;
    }

    /** The path of a request target: origin-form up to {@code ?}; absolute-form reduced to its path. */
    static String path(String uri) {
        String u = uri;
        if (!u.startsWith("/")) {
            int scheme = u.indexOf("://");
            if (scheme > 0) {
                int slash = u.indexOf('/', scheme + 3);
                u = slash < 0 ? "/" : u.substring(slash);
            }
        }
        int end = u.length();
        int q = u.indexOf('?');
        if (q >= 0) {
            end = q;
        }
        int hash = u.indexOf('#');
        if (hash >= 0 && hash < end) {
            end = hash;
        }
        return u.substring(0, end);
    }

    /** The query of a request target, without {@code ?} and any fragment; empty when there is none. */
    static String query(String uri) {
        int q = uri.indexOf('?');
        if (q < 0) {
            return "";
        }
        int hash = uri.indexOf('#', q);
        return uri.substring(q + 1, hash < 0 ? uri.length() : hash);
    }

    /** The request target in origin-form (path and query) for the upstream. */
    static String originForm(String uri) {
        if (uri.startsWith("/")) {
            return uri;
        }
        int scheme = uri.indexOf("://");
        if (scheme > 0) {
            int slash = uri.indexOf('/', scheme + 3);
            return slash < 0 ? "/" : uri.substring(slash);
        }
        return uri; // "*" (OPTIONS) passes as is
    }

    /** The fields by which a proxy tells the next hop who the client was (RFC 7239 and the de-facto ones). */
    private static final List<String> FORWARDING = List.of("forwarded", "x-forwarded-for", "x-forwarded-host",
            "x-forwarded-proto", "x-forwarded-port", "x-real-ip");

    /**
     * The request head sent upstream: method and target as received, end-to-end fields copied,
     * hop-by-hop fields removed (RFC 9110 §7.6.1), {@code Host} set to the upstream, and the body framed by
     * {@code Content-Length} or chunked. Forwarding fields: from a peer that is not a trusted proxy, the
     * client's own {@code Forwarded}, {@code X-Forwarded-For/-Host/-Proto/-Port} and {@code X-Real-IP} are
     * removed, and the edge writes {@code X-Forwarded-For} (the peer), {@code X-Forwarded-Host} (the request's
     * {@code Host}) and {@code X-Forwarded-Proto} ({@code http}, or {@code https} on a TLS listener); from a trusted proxy they are kept, the peer appended
     * to {@code X-Forwarded-For}, and the other two added only when absent.
     */
    static HttpRequest upstreamRequest(HttpRequest in, boolean hasBody, String upstreamAuthority, String clientAddress,
            boolean trustedPeer) {
        return upstreamRequest(in, hasBody, upstreamAuthority, clientAddress, trustedPeer, "http");
    }

    /** {@link #upstreamRequest(HttpRequest, boolean, String, String, boolean)} for a listener of {@code scheme}. */
    static HttpRequest upstreamRequest(HttpRequest in, boolean hasBody, String upstreamAuthority, String clientAddress,
            boolean trustedPeer, String scheme) {
        HttpHeaders h = new DefaultHttpHeaders();
        h.add(in.headers());
        String originalHost = h.get(HttpHeaderNames.HOST);
        if (!trustedPeer) {
            for (String name : FORWARDING) {
                h.remove(name);
            }
        }
        stripHopByHop(h);
        h.remove(HttpHeaderNames.EXPECT); // the edge answered 100-continue itself after its decision
        h.set(HttpHeaderNames.HOST, upstreamAuthority);
        if (originalHost != null && !h.contains("x-forwarded-host")) {
            h.set("x-forwarded-host", originalHost);
        }
        String xff = h.get("x-forwarded-for");
        h.set("x-forwarded-for", xff == null ? clientAddress : xff + ", " + clientAddress);
        if (!h.contains("x-forwarded-proto")) {
            h.set("x-forwarded-proto", scheme);
        }
        if (hasBody && !h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, in.method(), originForm(in.uri()), h);
    }

    /**
     * The response head sent to the client: the upstream's status and end-to-end fields, the
     * upstream's own rate-limit fields replaced by the edge's ({@code added}; none on anonymous routes,
     * SPEC §3.7), nothing shared-cacheable when per-key fields are present, {@code no-store} on
     * every 429 and 503 (SPEC §3.5; R19), and the upstream's {@code Date}, or {@code date} when it sent
     * none (RFC 9110 §6.6.1: a recipient with a clock adds one to a response it forwards).
     */
    static HttpResponse clientResponse(HttpResponse up, List<Header> added, boolean keepAlive, boolean http2,
            CharSequence date) {
        HttpHeaders h = new DefaultHttpHeaders();
        h.add(up.headers());
        if (!h.contains(HttpHeaderNames.DATE)) {
            h.add(HttpHeaderNames.DATE, date);
        }
        stripHopByHop(h);
        h.remove(LimitFields.POLICY_FIELD);
        h.remove(LimitFields.LIMIT_FIELD);
        h.remove(LimitFields.WARNING_FIELD);
        for (Header header : added) {
            h.add(header.name(), header.value());
        }
        int status = up.status().code();
        if (status == 429 || status == 503) {
            h.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        } else if (!added.isEmpty()) {
            String cc = privateCacheControl(h.get(HttpHeaderNames.CACHE_CONTROL));
            if (cc != null) {
                h.set(HttpHeaderNames.CACHE_CONTROL, cc);
            }
        }
        HttpResponse out = new DefaultHttpResponse(HttpVersion.HTTP_1_1, up.status(), h);
        if (!http2 && !h.contains(HttpHeaderNames.CONTENT_LENGTH) && mayHaveBody(status)) {
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (!http2) {
            HttpUtil.setKeepAlive(out, keepAlive);
        }
        return out;
    }

    /**
     * {@code Cache-Control} for a response carrying per-key fields (R19): {@code public} and
     * {@code s-maxage} are removed and {@code private} added; {@code null} when the value may stay
     * (absent, or already {@code private} / {@code no-store} without shared-cache directives).
     */
    static String privateCacheControl(String value) {
        if (value == null) {
            return null; // a response to an Authorization-bearing request is not shared-cached by default
        }
        List<String> kept = new ArrayList<>();
        boolean changed = false;
        boolean hasPrivate = false;
        boolean noStore = false;
        for (String part : value.split(",")) {
            String d = part.strip();
            if (d.isEmpty()) {
                continue;
            }
            String name = d.toLowerCase(Locale.ROOT);
            int eq = name.indexOf('=');
            String key = eq < 0 ? name : name.substring(0, eq).strip();
            if (key.equals("public") || key.equals("s-maxage")) {
                changed = true;
                continue;
            }
            hasPrivate |= key.equals("private");
            noStore |= key.equals("no-store");
            kept.add(d);
        }
        if (!changed) {
            return null;
        }
        if (!hasPrivate && !noStore) {
            kept.add(0, "private");
        }
        return String.join(", ", kept);
    }

    private static boolean mayHaveBody(int status) {
        return status >= 200 && status != 204 && status != 304;
    }

    private static void stripHopByHop(HttpHeaders h) {
        for (String listed : h.getAll(HttpHeaderNames.CONNECTION)) {
            for (String name : listed.split(",")) {
                String n = name.strip();
                if (!n.isEmpty()) {
                    h.remove(n);
                }
            }
        }
        for (String name : HOP_BY_HOP) {
            h.remove(name);
        }
        List<String> bridge = new ArrayList<>();
        for (Map.Entry<String, String> e : h) {
            if (e.getKey().regionMatches(true, 0, "x-http2-", 0, 8)) {
                bridge.add(e.getKey());
            }
        }
        bridge.forEach(h::remove);
    }
}
