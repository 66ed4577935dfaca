package dev.sluice.edge.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A raw HTTP/1.1 connection for what well-behaved clients refuse to send: absurd
 * {@code Content-Length}, header floods, stalled bodies, pipelining. Reads responses framed by
 * {@code Content-Length} or chunked encoding. Every read is bounded by a 10 s socket timeout.
 */
public final class RawHttp implements AutoCloseable {

    /** A response as read off the wire; header names lower-cased. */
    public record Response(int status, Map<String, List<String>> headers, String body) {
        public String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.get(0);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code text} (CRLFs as given) and flushes. */
    public RawHttp send(String text) {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one response. */
    public Response read() {
        try {
            String statusLine = line();
            if (statusLine == null) {
                throw new IllegalStateException("connection closed before a response");
            }
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            String l;
            while ((l = line()) != null && !l.isEmpty()) {
                int colon = l.indexOf(':');
                headers.computeIfAbsent(l.substring(0, colon).strip().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(l.substring(colon + 1).strip());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            List<String> cl = headers.get("content-length");
            List<String> te = headers.get("transfer-encoding");
            if (cl != null) {
                body.write(in.readNBytes(Integer.parseInt(cl.get(0))));
            } else if (te != null && te.get(0).equalsIgnoreCase("chunked")) {
                while (true) {
                    int size = Integer.parseInt(line().split(";")[0].strip(), 16);
                    if (size == 0) {
                        while (!line().isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    body.write(in.readNBytes(size));
                    line();
                }
            }
            return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether the server closed the connection: a read returns end of stream (or a reset) within the
     * socket timeout.
     */
    public boolean closedByPeer() {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }
}
