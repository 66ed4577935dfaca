package dev.sluice.cli.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code sluice keys ...}: the key admin API of a running edge ({@code /admin/v1/keys} on its admin port),
 * for an edge whose keys are in a key store. JSON out; exit 0 on success, 1 when the edge refused (its
 * problem detail printed), 2 on bad arguments, 3 when the edge could not be reached.
 */
@Command(name = "keys",
        mixinStandardHelpOptions = true,
        description = "Create, revoke and change API keys through a running edge's admin API.",
        subcommands = {KeysCommand.Create.class, KeysCommand.SetPlan.class, KeysCommand.SetOverride.class})
public final class KeysCommand {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--admin", paramLabel = "URL", defaultValue = "http://127.0.0.1:9090",
            description = "the edge's admin port (default: ${DEFAULT-VALUE})")
    URI admin;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:SLUICE_ADMIN_TOKEN}",
            description = "the admin API's bearer token (default: $SLUICE_ADMIN_TOKEN)")
    String token;

    @Spec
    CommandSpec spec;

    int call(String method, String path, JsonNode body) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        URI uri = admin.resolve("/admin/v1/" + path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Accept", "application/json");
        if (token != null && !token.isEmpty()) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String text = r.body();
            JsonNode parsed;
            try {
                parsed = JSON.readTree(text);
            } catch (IOException e) {
                parsed = null;
            }
            if (r.statusCode() >= 400) {
                err.println("sluice keys: " + method + " " + uri.getPath() + ": " + r.statusCode()
                        + (parsed != null && parsed.has("detail") ? " " + parsed.get("detail").asText() : " " + text));
                err.flush();
                return 1;
            }
            out.println(parsed == null ? text : JSON.writerWithDefaultPrettyPrinter().writeValueAsString(parsed));
            out.flush();
            return 0;
        } catch (IOException e) {
            err.println("sluice keys: cannot reach " + admin + ": " + e);
            err.flush();
            return 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 3;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print a key's record.")
    int show(@Parameters(paramLabel = "KEY_ID") String id) {
        return call("GET", "keys/" + id, null);
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a key (at once, on every edge).")
    int revoke(@Parameters(paramLabel = "KEY_ID") String id) {
        return call("DELETE", "keys/" + id, null);
    }

    @Command(name = "usage", mixinStandardHelpOptions = true, description = "Print a key's usage per policy.")
    int usage(@Parameters(paramLabel = "KEY_ID") String id) {
        return call("GET", "keys/" + id + "/usage", null);
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a key; prints it once (with its id). The clear key is stored nowhere.")
    static final class Create implements Callable<Integer> {
        @ParentCommand
        KeysCommand parent;
        @Option(names = "--plan", required = true, description = "the key's plan (one of the edge's plans)")
        String plan;
        @Option(names = "--override", paramLabel = "POLICY=Q", description = "the key's own q for a policy")
        Map<String, Long> overrides = new LinkedHashMap<>();
        @Option(names = "--renewal-day", description = "day of the month its monthly quotas renew (1..31)")
        Integer renewalDay;
        @Option(names = "--label", description = "a note: who the key is for")
        String label;
        @Option(names = "--warning-destination", paramLabel = "NAME",
                description = "the delivery destination of its quota.warning webhooks (default: its plan's)")
        String warningDestination;

        @Override
        public Integer call() {
            ObjectNode body = JSON.createObjectNode().put("plan", plan);
            if (renewalDay != null) {
                body.put("renewal_day", renewalDay);
            }
            if (!overrides.isEmpty()) {
                ObjectNode o = body.putObject("overrides");
                overrides.forEach(o::put);
            }
            if (label != null) {
                body.put("label", label);
            }
            if (warningDestination != null) {
                body.put("warning_destination", warningDestination);
            }
            return parent.call("POST", "keys", body);
        }
    }

    @Command(name = "plan", mixinStandardHelpOptions = true,
            description = "Move a key to another plan; --dry-run shows its standing under that plan instead.")
    static final class SetPlan implements Callable<Integer> {
        @ParentCommand
        KeysCommand parent;
        @Parameters(index = "0", paramLabel = "KEY_ID")
        String id;
        @Parameters(index = "1", paramLabel = "PLAN")
        String plan;
        @Option(names = "--dry-run", description = "change nothing; print the key's usage under PLAN")
        boolean dryRun;

        @Override
        public Integer call() {
            return parent.call("PUT", "keys/" + id + "/plan" + (dryRun ? "?dry-run=true" : ""),
                    JSON.createObjectNode().put("plan", plan));
        }
    }

    @Command(name = "override", mixinStandardHelpOptions = true,
            description = "Set the key's own q for one policy of its plan, or --clear it.")
    static final class SetOverride implements Callable<Integer> {
        @ParentCommand
        KeysCommand parent;
        @Parameters(index = "0", paramLabel = "KEY_ID")
        String id;
        @Parameters(index = "1", paramLabel = "POLICY")
        String policy;
        @Parameters(index = "2", arity = "0..1", paramLabel = "Q")
        Long q;
        @Option(names = "--clear", description = "back to the plan's q")
        boolean clear;

        @Override
        public Integer call() {
            if (clear == (q != null)) {
                parent.spec.commandLine().getErr().println("sluice keys override: give Q or --clear");
                return 2;
            }
            String path = "keys/" + id + "/overrides/" + policy;
            return clear ? parent.call("DELETE", path, null)
                    : parent.call("PUT", path, JSON.createObjectNode().put("q", q));
        }
    }
}
