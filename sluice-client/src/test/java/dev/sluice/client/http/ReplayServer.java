package dev.sluice.client.http;

import dev.sluice.time.TimeSource;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A loopback HTTP/1.1 server that writes scripted responses byte for byte (the JDK's HttpServer
 * would overwrite a captured {@code Date}, which vendor resets are measured from). One response
 * per connection ({@code Connection: close}); after the script, 200 with an empty body.
 */
final class ReplayServer implements AutoCloseable {

    /** One scripted response: status line, header lines in order, body. */
    record Reply(int status, String reason, List<Map.Entry<String, String>> headers, String body) {
        static Reply of(int status, String body, String... namesAndValues) {
            List<Map.Entry<String, String>> h = new ArrayList<>();
            for (int i = 0; i < namesAndValues.length; i += 2) {
                h.add(Map.entry(namesAndValues[i], namesAndValues[i + 1]));
            }
            return new Reply(status, "Status", h, body == null ? "" : body);
        }
    }

    /** One request as received. */
    record Received(String method, String path, Map<String, String> headers, long atNanos) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** A reply that never comes: the server reads the request and says nothing. */
    static final int HANG = -1;

    private final ServerSocket socket;
    private final TimeSource time;
    private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
    final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final Thread acceptor;
    private volatile boolean closed;

    ReplayServer(TimeSource time) throws IOException {
        this.time = time;
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofVirtual().name("replay-server").start(this::acceptLoop);
    }

    ReplayServer then(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    java.net.URI uri(String path) {
        return java.net.URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = socket.accept();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
            String head = readHead(in);
            if (head == null) {
                return;
            }
            String[] lines = head.split("\r\n");
            String[] requestLine = lines[0].split(" ");
            Map<String, String> headers = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int c = lines[i].indexOf(':');
                if (c > 0) {
                    headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
                }
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            in.readNBytes(length);
            received.add(new Received(requestLine[0], requestLine[1], headers, time.nanoTime()));
            Reply r = script.poll();
            if (r == null) {
                r = Reply.of(200, "ok");
            }
            if (r.status() == HANG) {
                in.read(); // hold the connection without answering until the client gives up
                return;
            }
            byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
            StringBuilder b = new StringBuilder("HTTP/1.1 ").append(r.status()).append(' ').append(r.reason()).append("\r\n");
            for (Map.Entry<String, String> h : r.headers()) {
                String n = h.getKey().toLowerCase(Locale.ROOT);
                if (!n.equals("content-length") && !n.equals("transfer-encoding") && !n.equals("connection")) {
                    b.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
                }
            }
            b.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
            out.write(b.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
        } catch (IOException | RuntimeException e) {
            // the client went away; nothing to do
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int state = 0;
        int c;
        while ((c = in.read()) >= 0) {
            buf.write(c);
            state = switch (state) {
                case 0, 2 -> c == '\r' ? state + 1 : 0;
                case 1 -> c == '\n' ? 2 : 0;
                case 3 -> c == '\n' ? 4 : 0;
                default -> 0;
            };
            if (state == 4) {
                return buf.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        socket.close();
        acceptor.interrupt();
    }
}
