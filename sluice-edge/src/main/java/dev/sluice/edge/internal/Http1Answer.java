package dev.sluice.edge.internal;

import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A response the edge writes itself on an HTTP/1.1 connection (a rejection, a usage report), on its way to the
 * {@link Http1Codec}, which writes its bytes straight from the {@link EdgeResponse}: no header map is built, no
 * header validated and iterated per request, and an answer written again within the same second (the
 * escalation stage's 429 is one response per key and second) is copied from the bytes of the first.
 *
 * <p>The bytes are exactly those Netty's {@code HttpResponseEncoder} writes for
 * {@link HttpMessages#toNetty(EdgeResponse, CharSequence)} of the same response (after the
 * {@link KeepAliveHandler}'s keep-alive decision): {@code HTTP/1.1 <code> <reason>}, {@code date} first, the
 * response's fields in order as named, {@code content-length}, {@code connection: close} when the connection
 * closes after it, the body. A response that would not encode the same (a field name that is not a token, a
 * value with a control or non-ASCII character, a {@code Connection} or {@code Content-Length} field of its
 * own, a status without a body) is not {@link #encodable} and is written through Netty's encoder instead.
 *
 * <p>Not reference counted: nothing to release when it is dropped. Immutable.
 *
 * @param response the response
 * @param date the {@code Date} field value ({@link DateField#now()}: one instance per second)
 * @param close whether the connection closes after it ({@code connection: close})
 */
record Http1Answer(EdgeResponse response, AsciiString date, boolean close) {

    Http1Answer {
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(date, "date");
    }

    /** This answer with {@code connection: close}. */
    Http1Answer closing() {
        return close ? this : new Http1Answer(response, date, true);
    }

    /** The same response as Netty's message, for the encoder's own path. */
    FullHttpResponse toNetty() {
        FullHttpResponse full = HttpMessages.toNetty(response, date);
        HttpUtil.setKeepAlive(full, !close);
        return full;
    }

    /** Whether {@code r} is written by {@link #encode} byte for byte as Netty's encoder writes it. */
    static boolean encodable(EdgeResponse r) {
        int status = r.status();
        if (status < 200 || status == 204 || status == 205 || status == 304) {
            return false; // the encoder rewrites these responses' framing fields
        }
        for (Header h : r.headers()) {
            String name = h.name();
            if (name.isEmpty() || name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("connection")
                    || name.equalsIgnoreCase("date") || name.equalsIgnoreCase("transfer-encoding")) {
                return false;
            }
            for (int i = 0; i < name.length(); i++) {
                if (!token(name.charAt(i))) {
                    return false;
                }
            }
            String value = h.value();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c < 0x20 && c != '\t' || c >= 0x7f) {
                    return false;
                }
            }
        }
        return true;
    }

    /** RFC 9110 §5.6.2 tchar. */
    private static boolean token(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    /**
     * The answer's bytes, head and body; {@link #headLength} of them are the head. Only for an
     * {@link #encodable} response.
     */
    Encoded encode() {
        HttpResponseStatus status = HttpResponseStatus.valueOf(response.status());
        StringBuilder head = new StringBuilder(256);
        head.append("HTTP/1.1 ").append(status.code()).append(' ').append(status.reasonPhrase()).append("\r\n");
        head.append("date: ").append(date).append("\r\n");
        for (Header h : response.headers()) {
            head.append(h.name()).append(": ").append(h.value()).append("\r\n");
        }
        head.append("content-length: ").append(response.body().length).append("\r\n");
        if (close) {
            head.append("connection: close\r\n");
        }
        byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = response.body();
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return new Encoded(all, headBytes.length);
    }

    /**
     * An answer's bytes.
     *
     * @param bytes the head and the body; never changed once built
     * @param headLength how many of them are the head (all that is written in answer to {@code HEAD})
     */
    record Encoded(byte[] bytes, int headLength) {}
}
