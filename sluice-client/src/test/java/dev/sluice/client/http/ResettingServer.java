package dev.sluice.client.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server that reads each request's head, counts it, and resets the connection (RST,
 * {@code SO_LINGER 0}) before sending a single response byte: the failure the JDK's HttpClient
 * re-sends a GET or HEAD for by itself.
 */
final class ResettingServer implements AutoCloseable {

    private final ServerSocket socket;
    private final Thread acceptor;
    /** Requests whose head arrived complete. */
    final AtomicInteger requests = new AtomicInteger();

    ResettingServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual().name("resetting-server").start(this::acceptLoop);
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                Thread.ofVirtual().start(() -> reset(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void reset(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            int state = 0;
            int c;
            while (state < 4 && (c = in.read()) >= 0) {
                state = switch (state) {
                    case 0, 2 -> c == '\r' ? state + 1 : 0;
                    case 1 -> c == '\n' ? 2 : 0;
                    case 3 -> c == '\n' ? 4 : 0;
                    default -> 0;
                };
            }
            if (state == 4) {
                requests.incrementAndGet();
            }
            s.setSoLinger(true, 0); // close with RST, not FIN
        } catch (IOException e) {
            // the client went away first; nothing to count
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        acceptor.interrupt();
    }
}
