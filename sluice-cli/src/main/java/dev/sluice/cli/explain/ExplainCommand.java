package dev.sluice.cli.explain;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.cli.CliError;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.dialect.DialectRegistry;
import dev.sluice.wire.http.MalformedResponseException;
import dev.sluice.wire.http.RawHttpResponse;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice explain}: reads one raw HTTP response (status line, header fields, optional body)
 * and prints what it says about the caller's limits as one JSON object, whatever dialect the server
 * spoke (SPEC §2.6). The output is a stable interface, documented in the README:
 *
 * <pre>{@code
 * {"status":429,"kind":"rate_limited","dialect":"ietf-draft-11","retry_after_ms":1000,"cached":false,
 *  "policies":[{"name":"burst","quota":20,"window_s":2,"remaining":0,"reset_ms":1000, ...}],
 *  "limit":"burst","wait_ms":1000,"violated_policies":["burst"],"quota_reset_at":null,"attributes":{}}
 * }</pre>
 *
 * <p>Absent values are {@code null}; {@code policies} may be empty. The first seven members are
 * the original ones; the rest are additions (per-policy {@code kind}, {@code unit}, {@code used},
 * {@code reset_at}, and the response-level {@code limit}, {@code wait_ms}, {@code violated_policies},
 * {@code quota_reset_at}, {@code attributes}). {@code retry_after_ms} is the server's explicit hint
 * only; {@code wait_ms} is what a well-behaved client waits, {@link RateLimitSnapshot#suggestedWait()}
 * — the same rule {@code SluiceHttpClient} follows: the longest hint (less {@code Age} when cached),
 * and the reset of every policy that governs the next request (+1 s when the reset was an absolute
 * time, R04; ignored when cached, SPEC §2.5). A GitHub primary limit says when in
 * {@code x-ratelimit-reset}, not in {@code Retry-After}.
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        headerHeading = "%n",
        header = "Explain what a raw HTTP response says about the caller's limits.",
        description = {
            "Prints one JSON object: what kind of answer it is, how long to wait, and each reported",
            "limit, normalised from any dialect (IETF drafts, GitHub, OpenAI, Anthropic, Discord,",
            "Shopify, Google, ...)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the response was read", "2:the input is not an HTTP response (one-line error)"})
public final class ExplainCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--response", required = true, paramLabel = "FILE",
            description = "A raw HTTP/1.1 response: status line, headers, empty line, body. '-' reads standard input.")
    String response;

    @Option(names = "--now", paramLabel = "INSTANT",
            description = "The local clock (UTC instant, e.g. 2026-11-30T18:00:00Z), used only when the response has no Date. Default: the system clock.")
    String now;

    @Override
    public Integer call() {
        try {
            Instant localNow = localNow();
            ResponseView view = RawHttpResponse.parse(read());
            RateLimitSnapshot snapshot = DialectRegistry.standard().read(view, localNow);
            PrintWriter out = spec.commandLine().getOut();
            out.println(toJson(snapshot));
            out.flush();
            return 0;
        } catch (CliError e) {
            return fail(e.getMessage());
        } catch (MalformedResponseException e) {
            return fail(where() + e.getMessage());
        }
    }

    private int fail(String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("sluice explain: " + message);
        err.flush();
        return 2;
    }

    private String where() {
        return "-".equals(response) ? "<stdin>: " : response + ": ";
    }

    private Instant localNow() {
        if (now == null) {
            return TimeSource.system().now();
        }
        try {
            return Instant.parse(now);
        } catch (DateTimeParseException e) {
            throw new CliError("--now: not an ISO-8601 UTC instant like 2026-11-30T18:00:00Z: " + now);
        }
    }

    private byte[] read() {
        try {
            if ("-".equals(response)) {
                try (InputStream in = System.in) {
                    return in.readAllBytes();
                }
            }
            return Files.readAllBytes(Path.of(response));
        } catch (NoSuchFileException e) {
            throw new CliError(where() + "no such file");
        } catch (IOException e) {
            throw new CliError(where() + "cannot read: " + e.getMessage());
        }
    }

    /** The snapshot as the documented JSON object. */
    static String toJson(RateLimitSnapshot s) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(text)) {
            json.writeStartObject();
            json.writeNumberField("status", s.status());
            json.writeStringField("kind", s.outcome().wireName());
            json.writeStringField("dialect", s.dialect());
            writeLong(json, "retry_after_ms", s.retryAfterMillis());
            json.writeBooleanField("cached", s.cached());
            json.writeArrayFieldStart("policies");
            for (PolicySnapshot p : s.policies()) {
                json.writeStartObject();
                json.writeStringField("name", p.name());
                writeLong(json, "quota", p.quota());
                writeLong(json, "window_s", p.windowSeconds());
                writeLong(json, "remaining", p.remaining());
                writeLong(json, "reset_ms", p.resetMillis());
                json.writeStringField("kind", p.kind().name().toLowerCase(Locale.ROOT));
                json.writeStringField("unit", p.quotaUnit());
                writeLong(json, "used", p.used());
                json.writeStringField("reset_at", rfc3339(p.resetAt()));
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeStringField("limit", s.violatedPolicy());
            writeLong(json, "wait_ms", s.suggestedWait().map(Duration::toMillis).orElse(null));
            json.writeArrayFieldStart("violated_policies");
            for (String name : s.violatedPolicies()) {
                json.writeString(name);
            }
            json.writeEndArray();
            json.writeStringField("quota_reset_at", rfc3339(s.quotaResetAt()));
            json.writeObjectFieldStart("attributes");
            for (Map.Entry<String, String> e : s.attributes().entrySet()) {
                json.writeStringField(e.getKey(), e.getValue());
            }
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to a string cannot fail", e);
        }
        return text.toString();
    }

    /** RFC 3339 UTC to the millisecond at most (a local clock's nanoseconds are noise here). */
    private static String rfc3339(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    private static void writeLong(JsonGenerator json, String name, Long value) throws IOException {
        if (value == null) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, value);
        }
    }
}
