package dev.sluice.edge.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An upstream that answers every request with the same raw bytes, exactly as given (so a test controls
 * every header field, including {@code Date}, which the JDK server always sets itself), then closes the
 * connection. It reads the request head only. {@link #silent()} reads everything and never answers.
 */
public final class FixedUpstream implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final AtomicInteger closedByEdge = new AtomicInteger();
    private final AtomicLong bytesRead = new AtomicLong();

    /** An upstream that reads every request and never answers (a response timeout). */
    public static FixedUpstream silent() {
        return new FixedUpstream(null);
    }

    public FixedUpstream(String response) {
        byte[] bytes = response == null ? null : response.getBytes(StandardCharsets.ISO_8859_1);
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket s = server.accept();
                    accepted.add(s);
                    Thread.ofVirtual().start(() -> answer(s, bytes, closedByEdge, bytesRead));
                }
            } catch (IOException e) {
                // closed
            }
        }, "fixed-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void answer(Socket s, byte[] response, AtomicInteger closedByEdge,
            AtomicLong bytesRead) {
        try (s) {
            InputStream in = s.getInputStream();
            if (response == null) {
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    bytesRead.addAndGet(n);
                }
                closedByEdge.incrementAndGet(); // end of stream: the edge closed the connection
                return;
            }
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0) {
                head.write(c);
                byte[] b = head.toByteArray();
                int n = b.length;
                if (n >= 4 && b[n - 4] == '\r' && b[n - 3] == '\n' && b[n - 2] == '\r' && b[n - 1] == '\n') {
                    break;
                }
            }
            s.getOutputStream().write(response);
            s.getOutputStream().flush();
        } catch (IOException e) {
            // the edge went away
        }
    }

    /** {@link #silent()}: connections the edge closed (the upstream read their end of stream). */
    public int connectionsClosedByEdge() {
        return closedByEdge.get();
    }

    /** {@link #silent()}: the bytes read on all connections. */
    public long bytesRead() {
        return bytesRead.get();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    @Override
    public void close() {
        try {
            server.close();
            for (Socket s : accepted) {
                s.close();
            }
        } catch (IOException e) {
            // closing
        }
    }
}
