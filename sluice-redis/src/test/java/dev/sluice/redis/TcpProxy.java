package dev.sluice.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A loopback TCP forwarder in front of the test Redis, so a test can take "Redis" away and bring it
 * back without touching the shared server: {@link #stop()} closes every connection and the listening
 * socket (clients see a refused connection, as with a stopped Redis); {@link #start()} listens on the
 * same port again.
 */
public final class TcpProxy implements AutoCloseable {

    private final int targetPort;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        ServerSocket s = listenOnAFreeFixedPort();
        this.port = s.getLocalPort();
        accept(s);
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Closes every forwarded connection and stops listening: connections are refused. */
    public synchronized void stop() throws IOException {
        ServerSocket s = server;
        server = null;
        if (s != null) {
            s.close();
        }
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    /**
     * Listens again on the same port. A socket of the stopped proxy can hold the port for a moment
     * after {@link #stop()} (seen about once in twenty runs on a loaded machine), so this retries
     * for up to 3 s; if the port is still taken it fails listing the sockets that hold it.
     */
    public synchronized void start() throws IOException {
        if (server != null) {
            return;
        }
        try {
            Awaitility.await("port " + port + " free again").atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                    .pollInSameThread().until(this::listenAgain); // this thread holds the proxy's lock
        } catch (ConditionTimeoutException e) {
            throw new java.net.BindException("port " + port + " still taken: " + socketsOn(port));
        }
    }

    private boolean listenAgain() throws IOException {
        try {
            accept(listen(port));
            return true;
        } catch (java.net.BindException taken) {
            return false;
        }
    }

    private static String socketsOn(int port) {
        try {
            Process p = new ProcessBuilder("ss", "-tanpo", "( sport = :" + port + " or dport = :" + port + " )")
                    .redirectErrorStream(true).start();
            return new String(p.getInputStream().readAllBytes());
        } catch (IOException e) {
            return "(ss unavailable: " + e.getMessage() + ")";
        }
    }

    /**
     * A port below the kernel's ephemeral range (32768-60999 on Linux): while the proxy is stopped,
     * a client reconnecting to an ephemeral-range port can be given that same port as its own
     * source port and connect to itself (TCP simultaneous open), and then the proxy cannot listen
     * there again ("Address already in use").
     */
    private static ServerSocket listenOnAFreeFixedPort() throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            int candidate = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
            try {
                return listen(candidate);
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void accept(ServerSocket s) {
        server = s;
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket client = s.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    sockets.add(client);
                    sockets.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    return; // closed by stop()
                }
            }
        }, "tcp-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
