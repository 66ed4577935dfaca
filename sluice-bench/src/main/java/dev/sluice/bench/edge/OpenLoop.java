package dev.sluice.bench.edge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop HTTP/1.1 load at a fixed offered rate, for latency below saturation: request {@code i}
 * is due at {@code start + i / rate}, spread round-robin over a few keep-alive connections, and its
 * latency is measured from that due time, not from when it could be sent. A request that cannot go
 * out on time (its connection still waits for the previous answer) is sent late and its wait counts
 * in its latency, so a stall is not hidden by the load slowing down with it (the "coordinated
 * omission" of closed-loop tools such as {@code wrk}; the same correction as {@code wrk2}).
 *
 * <p>Arguments: {@code URL RATE_PER_SECOND WARMUP_SECONDS MEASURE_SECONDS CONNECTIONS [HEADER: VALUE]...}.
 * Prints one line on stdout: {@code OPEN}, then tab-separated the achieved rate (answers per second in
 * the measured window), latency p50, p99, p99.9 and max (µs, from the due time), non-2xx answers,
 * answers, and requests sent more than 1 ms after their due time. Only responses framed by
 * {@code Content-Length} are read; anything else ends the run with an exception. One platform thread
 * per connection, parked until each due time.
 */
public final class OpenLoop {

    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private OpenLoop() {}

    /** The counts and latencies of one connection's measured requests. */
    private static final class Connection {
        final Histogram latencyNanos = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long answers;
        long non2xx;
        long late;
        Exception failure;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: OpenLoop URL RATE_PER_SECOND WARMUP_SECONDS MEASURE_SECONDS CONNECTIONS"
                    + " [HEADER: VALUE]...");
            System.exit(2);
        }
        URI url = URI.create(args[0]);
        double rate = Double.parseDouble(args[1]);
        long warmupNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        long measureNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[3]));
        int connections = Integer.parseInt(args[4]);
        StringBuilder head = new StringBuilder();
        head.append("GET ").append(url.getRawPath()).append(" HTTP/1.1\r\nHost: ").append(url.getHost())
                .append(':').append(url.getPort()).append("\r\n");
        for (int i = 5; i < args.length; i++) {
            head.append(args[i]).append("\r\n");
        }
        byte[] request = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        double periodNanos = 1e9 / rate;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        long measureFrom = start + warmupNanos;
        long end = measureFrom + measureNanos;
        List<Connection> results = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Connection result = new Connection();
            results.add(result);
            int index = c;
            Thread t = Thread.ofPlatform().name("open-loop-" + c).start(() -> {
                try {
                    run(url, request, result, index, connections, periodNanos, start, measureFrom, end);
                } catch (Exception e) {
                    result.failure = e;
                }
            });
            threads.add(t);
        }
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long answers = 0;
        long non2xx = 0;
        long late = 0;
        for (int c = 0; c < connections; c++) {
            threads.get(c).join();
            Connection r = results.get(c);
            if (r.failure != null) {
                throw new IllegalStateException("connection " + c + " failed", r.failure);
            }
            all.add(r.latencyNanos);
            answers += r.answers;
            non2xx += r.non2xx;
            late += r.late;
        }
        System.out.printf(Locale.ROOT, "OPEN\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d%n",
                answers / (measureNanos / 1e9), micros(all, 50), micros(all, 99), micros(all, 99.9),
                all.getMaxValue() / 1e3, non2xx, answers, late);
    }

    private static double micros(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }

    private static void run(URI url, byte[] request, Connection result, int index, int connections,
                            double periodNanos, long start, long measureFrom, long end) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(url.getHost(), url.getPort()), 5_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            ResponseReader reader = new ResponseReader(in);
            for (long i = index; ; i += connections) {
                long due = start + (long) (i * periodNanos);
                if (due >= end) {
                    return;
                }
                long now;
                while ((now = System.nanoTime()) < due) {
                    LockSupport.parkNanos(due - now);
                }
                out.write(request);
                out.flush();
                int status = reader.next();
                long done = System.nanoTime();
                if (due >= measureFrom) {
                    result.latencyNanos.recordValue(Math.min(done - due, TimeUnit.SECONDS.toNanos(60)));
                    result.answers++;
                    if (status < 200 || status > 299) {
                        result.non2xx++;
                    }
                    if (now - due > LATE_NANOS) {
                        result.late++;
                    }
                }
            }
        }
    }

    /** Reads HTTP/1.1 responses framed by {@code Content-Length} from one connection. */
    static final class ResponseReader {
        private final InputStream in;
        private final byte[] buf = new byte[64 * 1024];
        private int pos;
        private int limit;

        ResponseReader(InputStream in) {
            this.in = in;
        }

        /** Reads one whole response and returns its status code. */
        int next() throws IOException {
            int headEnd;
            while ((headEnd = indexOfHeadEnd()) < 0) {
                fill();
            }
            String head = new String(buf, pos, headEnd - pos, StandardCharsets.ISO_8859_1);
            int status = Integer.parseInt(head.substring(9, 12));
            long length = -1;
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                    length = Long.parseLong(line.substring(colon + 1).trim());
                }
            }
            if (length < 0) {
                throw new IOException("a response without Content-Length: " + head.lines().findFirst().orElse(""));
            }
            pos = headEnd + 4;
            long left = length;
            while (left > 0) {
                if (pos == limit) {
                    fill();
                }
                int take = (int) Math.min(left, limit - pos);
                pos += take;
                left -= take;
            }
            return status;
        }

        private int indexOfHeadEnd() {
            for (int i = pos; i + 3 < limit; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private void fill() throws IOException {
            if (pos == limit) {
                pos = 0;
                limit = 0;
            } else if (limit == buf.length) {
                System.arraycopy(buf, pos, buf, 0, limit - pos);
                limit -= pos;
                pos = 0;
            }
            if (limit == buf.length) {
                throw new IOException("a response head larger than " + buf.length + " bytes");
            }
            int n = in.read(buf, limit, buf.length - limit);
            if (n < 0) {
                throw new IOException("the server closed the connection");
            }
            limit += n;
        }
    }
}
