package dev.sluice.cli.deliver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
            if (key.startsWith("later")) {
                x.getResponseHeaders().add("Retry-After", "3600");
                x.sendResponseHeaders(429, -1);
                x.close();
                return;
            }
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
    void theStartUpLineNamesTheStoreInUseWhenStoreOverridesTheConfig() {
        Path other = dir.resolve("other.db");

        CliRun run = deliver("run", "-c", config.toString(), "--store", "sqlite:" + other, "--until-idle",
                "--progress", "100ms");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains(" on sqlite:" + other + ", 1 destination(s)");
        assertThat(other).exists();
        assertThat(dir.resolve("d.db")).doesNotExist();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        // README: 1 refused or not found, 2 bad configuration or input
        "enqueue --dest nowhere --type t --key k1 | 1 | unknown destination",
        "enqueue --dest shop --type t --key a.b | 2 | ",
        "run --until-idle --progress 0s | 2 | --progress must be > 0",
        "status --store mysql://db | 2 | store must be 'sqlite:PATH' or a 'jdbc:postgresql:' URL",
        "replay 99 | 3 | no ledger at",
        "dead-letters --store sqlite:%s | 3 | not a SQLite database or is damaged"})
    void exitCodesAreTheReadmes(String command, int code, String message) throws IOException {
        Path junk = dir.resolve("junk.db");
        Files.writeString(junk, "not a database, not at all; ".repeat(200));
        command = command.formatted(junk);
        String[] args = concat(concat(new String[] {"deliver"}, command.split(" ")),
                new String[] {"-c", config.toString()});
        if (command.startsWith("enqueue")) {
            args = concat(args, new String[] {"--payload", payload.toString()});
        }

        CliRun r = CliRun.of(args);

        assertThat(r.exitCode()).as(r.err()).isEqualTo(code);
        assertThat(r.err()).startsWith("sluice deliver: ").doesNotContain("\tat ");
        if (message != null) {
            assertThat(r.err()).containsIgnoringCase(message);
        }
    }

    @Test
    void reviewResolveRejectsAnUnknownDecision() {
        CliRun r = deliver("review", "resolve", "-c", config.toString(), "1", "--as", "maybe");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("expected delivered, retry or dead; got 'maybe'");
    }

    @Test
    void theConfigOptionWorksBeforeAndAfterTheSubcommand() {
        String[] enqueue = {"--dest", "shop", "--type", "t", "--key", "k", "--payload", payload.toString()};
        CliRun before = CliRun.of(concat(new String[] {"deliver", "-c", config.toString(), "enqueue"}, enqueue));
        CliRun after = CliRun.of(concat(new String[] {"deliver", "enqueue", "--config", config.toString()}, enqueue));

        assertThat(before.exitCode()).as(before.err()).isZero();
        assertThat(before.out()).startsWith("enqueued ledger=1 key=k");
        assertThat(after.out()).startsWith("already_queued ledger=1 key=k");
        // nested subcommands too, at any level
        assertThat(deliver("-c", config.toString(), "review", "list").out()).isEqualTo("nothing in review\n");
        assertThat(deliver("review", "-c", config.toString(), "list").out()).isEqualTo("nothing in review\n");
        assertThat(deliver("-c", config.toString(), "destinations").out()).contains("shop");
        assertThat(deliver("-c", config.toString(), "status").out()).contains("pending    1");
    }

    static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"status", "dead-letters", "review list", "destinations", "replay 1",
        "review resolve 1 --as dead", "destinations enable shop"})
    void readOnlyAndRepairCommandsDoNotCreateAStore(String command) throws IOException {
        Path db = dir.resolve("none/missing.db");
        Files.writeString(config, Files.readString(config).replace(dir.resolve("d.db").toString(), db.toString()));
        String[] args = concat(concat(new String[] {"deliver"}, command.split(" ")),
                new String[] {"-c", config.toString()});

        CliRun r = CliRun.of(args);

        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.err()).isEqualTo("sluice deliver: no ledger at " + db + "\n");
        assertThat(db.getParent()).doesNotExist();
    }

    @Test
    void untilIdleStopsPromptlyWhenOnlyFarFutureRetriesRemainAndSaysSo() {
        deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "t", "--key", "later-1",
                "--payload", payload.toString());

        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> deliver("run", "-c", config.toString(), "--until-idle"));

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains("1 retry due later than --idle-horizon 1m (next at ");
        assertThat(run.out()).contains("still pending 1");
        assertThat(keys).containsExactly("later-1");
    }

    @Test
    void aPayloadThatIsNotUtf8IsRefusedWithFileAndByteOffsetAndNothingIsEnqueued() throws IOException {
        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, new byte[] {'{', '"', 'n', '"', ':', '"', 'J', 'o', (byte) 0xE9, '"', '}'});

        CliRun r = deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "t", "--key", "k",
                "--payload", latin1.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("sluice deliver: " + latin1 + ": not UTF-8 at byte offset 8 (0xe9);"
                + " payloads are sent as UTF-8: convert the file (e.g. iconv -f latin1 -t utf-8)\n");
        assertThat(dir.resolve("d.db")).doesNotExist();
    }

    @Test
    void aHugeDeadLetterPayloadIsPrintedBoundedNotWhole() throws IOException {
        rejectBad.set(true);
        StringBuilder big = new StringBuilder("{\"email\":\"a@example.com\",\"items\":[");
        for (int i = 0; i < 200_000; i++) {
            big.append(i == 0 ? "" : ",").append("{\"sku\":\"item-").append(i).append("\"}");
        }
        String json = big.append("]}").toString();
        Path huge = dir.resolve("huge.json");
        Files.writeString(huge, json);
        deliver("enqueue", "-c", config.toString(), "--dest", "shop", "--type", "t", "--key", "bad",
                "--payload", huge.toString());
        deliver("run", "-c", config.toString(), "--until-idle");

        CliRun dead = deliver("dead-letters", "-c", config.toString(), "--payloads");

        assertThat(dead.out()).contains("payload: {\"email\":\"[redacted]\",\"items\":[{\"sku\":\"item-0\"}")
                .contains("… (" + (json.length() - "a@example.com".length() + "[redacted]".length())
                        + " bytes in all; --json prints the whole copy)");
        assertThat(dead.out().length()).isLessThan(10_000);
    }

    @Test
    void subcommandSummariesAreOneCompleteSentence() {
        CliRun help = deliver("--help");

        assertThat(help.out()).contains("[-c=FILE]").contains("[--store=LOCATION]");
        String commands = help.out().substring(help.out().indexOf("Commands:") + "Commands:".length());
        // one entry per subcommand: its name, then a summary wrapped onto indented lines
        for (String entry : commands.strip().split("\n(?=  \\S)")) {
            assertThat(entry.strip().replaceAll("\\s+", " ")).as(entry).endsWith(".");
        }
        assertThat(deliver("run", "--help").out()).contains("(default 5s)").contains("(default 1m)");
    }
}
