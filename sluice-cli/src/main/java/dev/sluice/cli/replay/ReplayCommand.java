package dev.sluice.cli.replay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.cli.CliError;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Unavailable;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.edge.config.EdgeConfigReader;
import dev.sluice.limiter.config.KeyBinding;
import dev.sluice.limiter.config.LimiterConfig;
import dev.sluice.limiter.headers.RateLimitFields;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code sluice replay}: runs the limiter on a fake clock over a CSV trace and prints one JSON line
 * per request. The output is a stable interface (documented in the README):
 *
 * <pre>{@code
 * {"t_ms":0,"key":"k1","allowed":true,"status":200,"outcome":"ok","limit":null,"retry_after_s":null,
 *  "ratelimit_policy":"\"burst\";q=20;w=2, ...","ratelimit":"\"burst\";r=19;t=1, ..."}
 * }</pre>
 *
 * <p>Trace lines are {@code t_ms,key[,cost]}: milliseconds after {@code --start} (non-decreasing),
 * the API key, and the cost (default 1). A header line, blank lines and {@code #} comments are
 * skipped. Outcomes: {@code ok} (200), {@code rate_limited} / {@code quota_exhausted} (429, SPEC
 * §3.4), {@code cost_exceeds_burst} (400, SPEC §3.10), {@code unknown_key} (401; no limiter state is
 * created for it). A malformed line stops the run with its line number and exit code 2.
 */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        headerHeading = "%n",
        header = "Replay a CSV trace through the limiter on a fake clock.",
        description = {
            "Reads t_ms,key[,cost] lines and prints one JSON line per request: allowed, status,",
            "outcome, limit, retry_after_s, and the RateLimit-Policy and RateLimit values the edge",
            "would send. Unknown top-level sections of the configuration are reported as warnings."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every line replayed", "2:unreadable config or trace (the message names file, line and field)"})
public final class ReplayCommand implements Callable<Integer> {

    private static final Instant EARLIEST_START = Instant.parse("1970-01-01T00:00:00Z");
    private static final Instant LATEST_START = Instant.parse("2199-12-31T23:59:59Z");

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE",
            description = "YAML configuration with `plans` and `keys` (see examples/free-plan.yaml).")
    Path config;

    @Option(names = "--trace", required = true, paramLabel = "FILE",
            description = "CSV trace: t_ms,key[,cost] per line; optional header line.")
    Path trace;

    @Option(names = "--start", required = true, paramLabel = "INSTANT",
            description = "UTC instant of t_ms = 0, e.g. 2026-11-30T18:00:00Z (1970..2199).")
    String start;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try {
            run(new PrintWriter(spec.commandLine().getOut(), false), err);
            return 0;
        } catch (CliError e) {
            spec.commandLine().getOut().flush();
            err.println("sluice replay: " + e.getMessage());
            err.flush();
            return 2;
        }
    }

    private void run(PrintWriter out, PrintWriter err) {
        Instant origin;
        try {
            origin = Instant.parse(start);
        } catch (DateTimeParseException e) {
            throw new CliError("--start: not an ISO-8601 UTC instant like 2026-11-30T18:00:00Z: " + start);
        }
        if (origin.isBefore(EARLIEST_START) || origin.isAfter(LATEST_START)) {
            // the limiter's calendar counts days and microseconds from 1970 (as Redis does)
            throw new CliError("--start: must be between " + EARLIEST_START + " and " + LATEST_START + ", was " + start);
        }
        LimiterConfig limits;
        ConfigProblems problems = new ConfigProblems();
        try {
            ConfigNode root = ConfigNode.parse(config);
            limits = LimiterConfig.read(root, problems);
            // the file is usually the edge's: its other sections are the edge's, anything else is a typo
            root.warnUnknownFields(problems, EdgeConfigReader.SECTIONS);
            problems.throwIfAny();
        } catch (ConfigException e) {
            throw new CliError("invalid configuration:" + System.lineSeparator() + e.getMessage());
        }
        problems.warnings().forEach(w -> err.println("sluice replay: warning: " + w));
        err.flush();
        if (limits.keys().isEmpty()) {
            throw new CliError(config + ": no API keys configured (keys: or key-file:); every request would be 401");
        }

        ManualTimeSource clock = new ManualTimeSource(origin);
        // replay keeps every key: a trace is bounded, and eviction would not change any answer
        InMemoryLimiterStore store = new InMemoryLimiterStore(clock);
        try (BufferedReader in = Files.newBufferedReader(trace, StandardCharsets.UTF_8);
                JsonGenerator json = new JsonFactory().createGenerator(nonClosing(out))) {
            json.setRootValueSeparator(null);
            String line;
            int lineNo = 0;
            long lastMillis = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                Optional<TraceLine> parsed = TraceLine.parse(line, lineNo, trace);
                if (parsed.isEmpty()) {
                    continue;
                }
                TraceLine request = parsed.get();
                if (request.millis() < lastMillis) {
                    throw new CliError(trace + ":" + lineNo + ": t_ms: must not go backwards, was "
                            + request.millis() + " after " + lastMillis);
                }
                clock.advance(Duration.ofMillis(request.millis() - lastMillis));
                lastMillis = request.millis();
                writeDecision(json, request, limits.binding(request.key()), store);
                json.flush();
                out.println();
            }
        } catch (NoSuchFileException e) {
            throw new CliError(trace + ": no such file");
        } catch (IOException e) {
            throw new CliError(trace + ": " + e.getMessage());
        } finally {
            out.flush();
        }
    }

    private static void writeDecision(JsonGenerator json, TraceLine request, Optional<KeyBinding> binding,
            InMemoryLimiterStore store) throws IOException {
        json.writeStartObject();
        json.writeNumberField("t_ms", request.millis());
        json.writeStringField("key", request.key());
        if (binding.isEmpty()) {
            json.writeBooleanField("allowed", false);
            json.writeNumberField("status", 401);
            json.writeStringField("outcome", "unknown_key");
            json.writeNullField("limit");
            json.writeNullField("retry_after_s");
            json.writeNullField("ratelimit_policy");
            json.writeNullField("ratelimit");
            json.writeEndObject();
            return;
        }
        Plan plan = binding.get().plan();
        Decision decision = store.decide(request.key(), plan, Costs.requests(request.cost()));
        switch (decision) {
            case Allowed a -> {
                json.writeBooleanField("allowed", true);
                json.writeNumberField("status", 200);
                json.writeStringField("outcome", "ok");
                json.writeNullField("limit");
                json.writeNullField("retry_after_s");
            }
            case Denied d -> {
                json.writeBooleanField("allowed", false);
                json.writeNumberField("status", 429);
                json.writeStringField("outcome", d.outcome().wireName());
                json.writeStringField("limit", d.policy().name());
                json.writeNumberField("retry_after_s", d.retryAfterSeconds());
            }
            case CostExceedsBurst c -> {
                json.writeBooleanField("allowed", false);
                json.writeNumberField("status", 400);
                json.writeStringField("outcome", "cost_exceeds_burst");
                json.writeStringField("limit", c.policy().name());
                json.writeNullField("retry_after_s"); // waiting cannot help (R14a)
            }
            case Unavailable u -> { // a shared store failing closed (SPEC §3.14); the in-memory store never does
                json.writeBooleanField("allowed", false);
                json.writeNumberField("status", 503);
                json.writeStringField("outcome", "overloaded");
                json.writeNullField("limit");
                json.writeNumberField("retry_after_s", u.retryAfterSeconds());
            }
        }
        json.writeStringField("ratelimit_policy", plan.rateLimitPolicyField());
        // a cost_exceeds_burst decision reads no state; the edge still reports what is left (SPEC §2.2)
        var states = decision instanceof CostExceedsBurst ? store.usage(request.key(), plan) : decision.states();
        json.writeStringField("ratelimit", RateLimitFields.rateLimitField(states));
        json.writeEndObject();
    }

    private static Writer nonClosing(PrintWriter out) {
        return new java.io.FilterWriter(out) {
            @Override
            public void close() {
                // the command line owns stdout
            }
        };
    }
}
