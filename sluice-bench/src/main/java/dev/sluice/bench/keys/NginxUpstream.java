package dev.sluice.bench.keys;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * nginx answering {@code 200 ok} to every request on a loopback port, in the foreground as a child of this
 * process (one worker, no logs): the edge's upstream, as in {@code bench/edge.sh}, so the upstream's cost is
 * outside the JVM whose CPU is counted.
 */
final class NginxUpstream implements AutoCloseable {

    private final Process process;
    private final Path prefix;
    final int port;

    NginxUpstream() throws IOException, InterruptedException {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        prefix = Files.createTempDirectory("keys-bench-nginx");
        Files.createDirectories(prefix.resolve("logs"));
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, """
                daemon off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/logs/error.log crit;
                events { worker_connections 4096; }
                http {
                  access_log off;
                  keepalive_requests 100000000;
                  server { listen 127.0.0.1:%2$d; location / { return 200 "ok\\n"; } }
                }
                """.formatted(prefix, port));
        String nginx = Files.isExecutable(Path.of("/usr/sbin/nginx")) ? "/usr/sbin/nginx" : "nginx";
        process = new ProcessBuilder(nginx, "-p", prefix.toString(), "-c", conf.toString())
                .redirectErrorStream(true).redirectOutput(prefix.resolve("logs/out.log").toFile()).start();
        for (int i = 0; i < 100; i++) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        close();
        throw new IOException("nginx did not listen on 127.0.0.1:" + port + " within 5 s");
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
