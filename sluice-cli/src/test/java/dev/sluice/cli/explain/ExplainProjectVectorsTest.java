package dev.sluice.cli.explain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * From outside: every input of the four kinds of fault (a limit stated only in a body, 429 versus overloaded,
 * x-ratelimit families, lenient dates: the vectors in {@code testdata/header-vectors/sluice-*.json}, each citing its
 * public page) is written as a raw HTTP/1.1 response and read by {@code sluice explain}; the printed {@code kind}, the policies
 * and the flagged attributes must be the vector's.
 */
class ExplainProjectVectorsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path VECTORS = Path.of(System.getProperty("sluice.testdata")).resolve("header-vectors");
    private static final List<String> FILES = List.of(
            "sluice-body-limit-codes.json", "sluice-429-overloaded-only-when-said.json",
            "sluice-x-ratelimit-every-family.json", "sluice-http-date-lenient-zones.json",
            "sluice-absolute-and-relative-reset.json");

    @TempDir
    Path dir;

    static Stream<JsonNode> vectors() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (String f : FILES) {
            JSON.readTree(VECTORS.resolve(f).toFile()).forEach(all::add);
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void explainPrintsTheVectorsKindPoliciesAndFlags(JsonNode vector) throws IOException {
        int status = vector.get("status").isNull() ? 200 : vector.get("status").asInt();
        StringBuilder raw = new StringBuilder("HTTP/1.1 ").append(status).append(" X\r\n");
        for (Map.Entry<String, JsonNode> h : vector.get("headers").properties()) {
            raw.append(h.getKey()).append(": ").append(h.getValue().asText()).append("\r\n");
        }
        raw.append("\r\n");
        if (!vector.get("body").isNull()) {
            raw.append(vector.get("body").asText());
        }
        Path file = dir.resolve(vector.get("id").asText() + ".http");
        Files.writeString(file, raw, StandardCharsets.UTF_8);

        CliRun run = CliRun.of("explain", "--response", file.toString(), "--now", "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode out = JSON.readTree(run.out());
        JsonNode expected = vector.get("expected");
        assertThat(out.get("kind").asText()).isEqualTo(expected.get("kind").asText());
        for (String attribute : new String[] {"error_code", "non_conformant_date"}) {
            if (expected.has(attribute)) {
                JsonNode got = out.get("attributes").get(attribute);
                assertThat(got == null ? null : got.asText()).as(attribute)
                        .isEqualTo(expected.get(attribute).isNull() ? null : expected.get(attribute).asText());
            }
        }
        if (expected.has("policies")) {
            List<String> want = new ArrayList<>();
            expected.get("policies").forEach(p -> want.add(p.get("id").isNull() ? null : p.get("id").asText()));
            List<String> got = new ArrayList<>();
            out.get("policies").forEach(p -> got.add(p.get("name").isNull() ? null : p.get("name").asText()));
            assertThat(got).isEqualTo(want);
        }
        if (expected.has("reset_at_epoch")) {
            long wantMillis = expected.get("reset_at_epoch").decimalValue().movePointRight(3).longValueExact();
            assertThat(java.time.Instant.parse(out.get("policies").get(0).get("reset_at").asText()).toEpochMilli())
                    .isEqualTo(wantMillis);
        }
    }
}
