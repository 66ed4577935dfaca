package dev.sluice.wire.sf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every case of the httpwg structured-field-tests suite (vendored under
 * {@code testdata/structured-field-tests}) against the parser and serialiser, one test per case, and
 * prints the tally. Cases that are not {@code can_fail} must pass; a {@code can_fail} case may be
 * rejected, but when it is accepted it must yield the expected value.
 */
class StructuredFieldConformanceTest {

    private static final AtomicInteger PARSE_TOTAL = new AtomicInteger();
    private static final AtomicInteger PARSE_ACCEPTED_AS_EXPECTED = new AtomicInteger();
    private static final AtomicInteger MUST_FAIL_FAILED = new AtomicInteger();
    private static final AtomicInteger CAN_FAIL_ACCEPTED = new AtomicInteger();
    private static final AtomicInteger CAN_FAIL_REJECTED = new AtomicInteger();
    private static final AtomicInteger SERIALISE_TOTAL = new AtomicInteger();
    private static final AtomicInteger SERIALISE_CANONICAL = new AtomicInteger();
    private static final AtomicInteger SERIALISE_REFUSED = new AtomicInteger();
    private static final AtomicInteger FAILED = new AtomicInteger();

    static Stream<Named<JsonNode>> parseCases() {
        return cases(SfJson.testdata().resolve("structured-field-tests"));
    }

    static Stream<Named<JsonNode>> serialisationCases() {
        return cases(SfJson.testdata().resolve("structured-field-tests/serialisation-tests"));
    }

    private static Stream<Named<JsonNode>> cases(Path dir) {
        List<Named<JsonNode>> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode cases = SfJson.MAPPER.readTree(file.toFile());
                for (JsonNode c : cases) {
                    all.add(Named.of(file.getFileName() + ": " + c.get("name").textValue(), c));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(all).as("cases under %s", dir).isNotEmpty();
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("parseCases")
    void parseCase(JsonNode c) {
        PARSE_TOTAL.incrementAndGet();
        boolean ok = false;
        try {
            runParseCase(c);
            ok = true;
        } finally {
            if (!ok) {
                FAILED.incrementAndGet();
            }
        }
    }

    private static void runParseCase(JsonNode c) {
        String type = c.get("header_type").textValue();
        List<String> raw = new ArrayList<>();
        c.get("raw").forEach(line -> raw.add(line.textValue()));

        Object parsed;
        try {
            parsed = parse(type, raw);
        } catch (StructuredFieldParseException e) {
            assertThat(e.offset()).isBetween(0, e.input().length());
            if (c.path("must_fail").asBoolean()) {
                MUST_FAIL_FAILED.incrementAndGet();
                return;
            }
            if (c.path("can_fail").asBoolean()) {
                CAN_FAIL_REJECTED.incrementAndGet();
                return;
            }
            fail("rejected a valid field: " + e.getMessage(), e);
            return;
        }
        if (c.path("must_fail").asBoolean()) {
            fail("accepted a field that must fail, as " + parsed);
        }

        Object expected = SfJson.model(type, c.get("expected"));
        assertThat(parsed).as("parsed value").isEqualTo(expected);

        String canonical = canonical(c, raw);
        assertThat(serialize(parsed)).as("canonical serialisation of the parsed value").isEqualTo(canonical);
        assertThat(serialize(expected)).as("canonical serialisation of the expected value").isEqualTo(canonical);
        if (!canonical.isEmpty() || !type.equals("item")) {
            assertThat(parse(type, List.of(canonical))).as("canonical form parses back").isEqualTo(expected);
        }

        if (c.path("can_fail").asBoolean()) {
            CAN_FAIL_ACCEPTED.incrementAndGet();
        } else {
            PARSE_ACCEPTED_AS_EXPECTED.incrementAndGet();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serialisationCases")
    void serialisationCase(JsonNode c) {
        SERIALISE_TOTAL.incrementAndGet();
        boolean ok = false;
        try {
            String type = c.get("header_type").textValue();
            if (c.path("must_fail").asBoolean()) {
                // The model refuses invalid values when they are built, so they can never be written.
                assertThatThrownBy(() -> serialize(SfJson.model(type, c.get("expected"))))
                        .isInstanceOf(IllegalArgumentException.class);
                SERIALISE_REFUSED.incrementAndGet();
            } else {
                String canonical = String.join(", ", textList(c.get("canonical")));
                assertThat(serialize(SfJson.model(type, c.get("expected")))).isEqualTo(canonical);
                SERIALISE_CANONICAL.incrementAndGet();
            }
            ok = true;
        } finally {
            if (!ok) {
                FAILED.incrementAndGet();
            }
        }
    }

    @AfterAll
    static void printTally() {
        int total = PARSE_TOTAL.get() + SERIALISE_TOTAL.get();
        int passed = total - FAILED.get();
        System.out.printf(
                "structured-field-tests tally: total=%d passed=%d failed=%d | parse cases=%d: accepted as expected=%d,"
                        + " must_fail correctly failed=%d, can_fail accepted=%d, can_fail rejected=%d"
                        + " | serialisation cases=%d: canonical=%d, must_fail refused=%d%n",
                total, passed, FAILED.get(), PARSE_TOTAL.get(), PARSE_ACCEPTED_AS_EXPECTED.get(),
                MUST_FAIL_FAILED.get(), CAN_FAIL_ACCEPTED.get(), CAN_FAIL_REJECTED.get(),
                SERIALISE_TOTAL.get(), SERIALISE_CANONICAL.get(), SERIALISE_REFUSED.get());
    }

    private static String canonical(JsonNode c, List<String> raw) {
        List<String> lines = c.has("canonical") ? textList(c.get("canonical")) : raw;
        return String.join(", ", lines);
    }

    private static List<String> textList(JsonNode array) {
        List<String> lines = new ArrayList<>();
        array.forEach(line -> lines.add(line.textValue()));
        return lines;
    }

    private static Object parse(String type, List<String> lines) {
        return switch (type) {
            case "item" -> StructuredFields.parseItem(lines);
            case "list" -> StructuredFields.parseList(lines);
            case "dictionary" -> StructuredFields.parseDictionary(lines);
            default -> throw new IllegalStateException(type);
        };
    }

    @SuppressWarnings("unchecked")
    private static String serialize(Object model) {
        return switch (model) {
            case Item item -> StructuredFields.serialize(item);
            case Dictionary dictionary -> StructuredFields.serialize(dictionary);
            case List<?> list -> StructuredFields.serialize((List<Member>) list);
            default -> throw new IllegalStateException(String.valueOf(model));
        };
    }
}
