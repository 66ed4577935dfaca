package dev.sluice.cli.deliver;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice deliver} end to end, in-process, against a receiver on 127.0.0.1 and a SQLite file. */
class DeliverCommandTest {

    @TempDir
    Path dir;

    HttpServer receiver;
    final List<String> keys = new CopyOnWriteArrayList<>();
    final AtomicBoolean rejectBad = new AtomicBoolean(true);
    Path config;
    Path payload;

    @BeforeEach
    void setUp() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", x -> {
            try (InputStream in = x.getRequestBody()) {
                in.readAllBytes();
            }
            String key = x.getRequestHeaders().getFirst("Idempotency-Key");
            keys.add(key);
            x.sendResponseHeaders(key.equals("bad") && rejectBad.get() ? 422 : 200, -1);
            x.close();
        });
        receiver.start();
        config = dir.resolve("sluice-delivery.yaml");
        Files.writeString(config, """
                store: sqlite:%s
                redact: [ $.email ]
                destinations:
                  shop:
                    url: http://127.0.0.1:%d/hooks
                    rate: { per-second: 50, burst: 50 }
                    secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
                """.formatted(dir.resolve("d.db"), receiver.getAddress().getPort()));
        payload = dir.resolve("p.json");
        Files.writeString(payload, "{\"email\":\"a@example.com\",\"order\":1}");
    }

    @AfterEach
    void tearDown() {
        receiver.stop(0);
    }

    CliRun deliver(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "deliver";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliRun.of(all);
    }

    @Test
    void enqueueRunStatusDeadLettersAndReplay() {
        assertThat(deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "purchase.completed",
                "--key", "good", "--payload", payload.toString()).out()).startsWith("enqueued ledger=1 key=good");
        deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "purchase.completed", "--key", "bad",
                "--payload", payload.toString());
        assertThat(deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "purchase.completed",
                "--key", "good", "--payload", payload.toString()).out()).startsWith("already_queued ledger=1");

        CliRun run = deliver("run", "-c", config.toString(), "--until-idle", "--progress", "100ms");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("delivered 1 in").contains("dead-lettered 1");
        assertThat(run.err()).contains("delivered 1 (+");

        CliRun status = deliver("status", "-c", config.toString(), "--json");
        assertThat(status.out()).contains("\"delivered\" : 1").contains("\"terminal_response\" : 1");

        CliRun dead = deliver("dead-letters", "-c", config.toString(), "--payloads");
        assertThat(dead.out()).contains("bad").contains("terminal_response").contains("client_error 422")
                .contains("{\"email\":\"[redacted]\",\"order\":1}");

        rejectBad.set(false);
        assertThat(deliver("replay", "-c", config.toString(), "1").out()).startsWith("replayed 1: ledger=2 key=bad");
        deliver("run", "-c", config.toString(), "--until-idle", "--progress", "100ms");
        CliRun again = deliver("replay", "-c", config.toString(), "1");

        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("refused 1 (already_delivered)");
        assertThat(keys).containsExactlyInAnyOrder("good", "bad", "bad");
    }

    @Test
    void aConfigErrorNamesFileLineAndFieldAndExitsTwo() throws IOException {
        Files.writeString(config, Files.readString(config).replace("per-second: 50", "per-second: zero"));

        CliRun r = deliver("status", "-c", config.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(config + ":6:").contains("destinations.shop.rate.per-second: must be a number");
    }

    @Test
    void reviewResolveRejectsAnUnknownDecision() {
        CliRun r = deliver("review", "resolve", "-c", config.toString(), "1", "--as", "maybe");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("expected delivered, retry or dead; got 'maybe'");
    }
}
