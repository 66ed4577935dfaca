package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigNodeTest {

    private static ConfigNode parse(String yaml) {
        return ConfigNode.parse("c.yaml", null, new StringReader(yaml));
    }

    private static List<String> located(ConfigProblems problems) {
        return problems.list().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void anUnknownKeyWhoseValueIsABlockMappingIsReportedOnTheKeysLine() {
        ConfigNode root = parse("""
                listen: 8080
                upstrem:
                  url: http://127.0.0.1:9000
                """);
        ConfigProblems problems = new ConfigProblems();

        root.rejectUnknownFields(problems, new LinkedHashSet<>(List.of("listen", "upstream")));

        assertThat(located(problems)).containsExactly(
                "c.yaml:2: upstrem: unknown field; did you mean \"upstream\"? (expected one of listen, upstream)");
    }

    @Test
    void aNestedBlockMappingKeyKeepsItsOwnLine() {
        ConfigNode root = parse("""
                plans:
                  free:
                    polices:
                      - { name: burst }
                """);

        ConfigNode polices = root.get("plans").orElseThrow().get("free").orElseThrow().get("polices").orElseThrow();

        assertThat(polices.line()).isEqualTo(3);
        assertThat(root.get("plans").orElseThrow().line()).isEqualTo(1);
        assertThat(polices.elements().get(0).line()).isEqualTo(4);
    }

    @Test
    void aTabIsReportedOnItsLineWithTheParsersReason() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse("a: 1\nb:\n\tc: 2\n"));

        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().get(0).line()).isEqualTo(3);
        assertThat(e.getMessage()).startsWith("c.yaml:3: not valid YAML: found character '\\t(TAB)' that cannot "
                + "start any token");
    }

    @Test
    void anUnclosedFlowMappingKeepsTheParsersReason() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse("a: 1\nb: {c: 2\nd: 3\n"));

        assertThat(e.getMessage()).isEqualTo("c.yaml:3: not valid YAML: expected ',' or '}', but got : "
                + "(while parsing a flow mapping at line 2)");
    }

    @Test
    void aMissingFileIsOneLine(@TempDir Path dir) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigNode.parse(dir.resolve("x.yaml")));

        assertThat(e.getMessage()).isEqualTo(dir.resolve("x.yaml") + ":0: no such file");
    }

    @Test
    void problemsComeOutSortedByLineWhateverOrderTheyWereFound() {
        ConfigNode root = parse("a: x\nb: y\nc: z\n");
        ConfigProblems problems = new ConfigProblems();
        problems.add(root.get("c").orElseThrow(), "third");
        problems.add(root.get("a").orElseThrow(), "first");
        problems.add(root.get("b").orElseThrow(), "second");

        ConfigException e = catchThrowableOfType(ConfigException.class, problems::throwIfAny);

        assertThat(e.getMessage()).isEqualTo("c.yaml:1: a: first\nc.yaml:2: b: second\nc.yaml:3: c: third");
        assertThat(e.problems()).extracting(ConfigProblem::line).containsExactly(1, 2, 3);
    }

    @Test
    void theMainFilesProblemsComeBeforeTheKeyFilesWhicheverWasReadFirst() {
        ConfigProblems problems = new ConfigProblems();
        problems.add(new ConfigProblem("main.yaml", 9, "x", "late in main"));
        problems.add(new ConfigProblem("a-keys.yaml", 1, "k", "in the key file"));
        problems.add(new ConfigProblem("main.yaml", 2, "y", "early in main"));

        assertThat(problems.list()).extracting(ConfigProblem::message)
                .containsExactly("early in main", "late in main", "in the key file");
    }

    @Test
    void durationsShareOneGrammarWithDecimalsAndDays() {
        ConfigNode root = parse("""
                a: 250ms
                b: 1.5s
                c: 5m
                d: 2h
                e: 3d
                f: PT3S
                g: 0
                h: 0.25ms
                """);
        ConfigProblems problems = new ConfigProblems();

        List<Duration> read = root.fields().values().stream().map(n -> n.asDuration(problems).orElseThrow()).toList();

        assertThat(read).containsExactly(Duration.ofMillis(250), Duration.ofMillis(1500), Duration.ofMinutes(5),
                Duration.ofHours(2), Duration.ofDays(3), Duration.ofSeconds(3), Duration.ZERO, Duration.ofNanos(250_000));
        assertThat(problems.isEmpty()).isTrue();
    }

    @Test
    void aDurationNearMissGetsAHint() {
        ConfigNode root = parse("a: 5\nb: 5 sec\nc: 2 minutes\nd: fast\ne: 1.0000000001s\n");
        ConfigProblems problems = new ConfigProblems();

        root.fields().values().forEach(n -> assertThat(n.asDuration(problems)).isEmpty());

        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was 5 (add a unit: 5s or 5ms)",
                "must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"5 sec\" (units are ms, s, m, h, d: write 5s)",
                "must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"2 minutes\" (units are ms, s, m, h, d: write 2m)",
                "must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"fast\"",
                "must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was \"1.0000000001s\"");
    }

    @Test
    void aBoundedDurationSaysWhichBound() {
        ConfigNode root = parse("a: 0s\nb: 2d\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asDuration(problems, Duration.ofNanos(1), Duration.ofDays(1))).isEmpty();
        assertThat(root.get("b").orElseThrow().asDuration(problems, Duration.ofNanos(1), Duration.ofDays(1))).isEmpty();

        assertThat(located(problems)).containsExactly("c.yaml:1: a: must be > 0, was 0s",
                "c.yaml:2: b: must be at most 24h, was 2d");
    }

    @Test
    void bytesArePlainOrWithABinaryOrDecimalUnit() {
        ConfigNode root = parse("a: 16384\nb: 16KiB\nc: 1MiB\nd: 2kB\ne: 512B\n");
        ConfigProblems problems = new ConfigProblems();

        List<Long> read = root.fields().values().stream()
                .map(n -> n.asBytes(problems, 0, 1L << 30).getAsLong()).toList();

        assertThat(read).containsExactly(16_384L, 16_384L, 1_048_576L, 2_000L, 512L);
    }

    @Test
    void bytesOutOfRangeOrWithoutANumberAreProblems() {
        ConfigNode root = parse("a: 2GiB\nb: lots\nc: 99999999999GiB\n");
        ConfigProblems problems = new ConfigProblems();

        root.fields().values().forEach(n -> assertThat(n.asBytes(problems, 256, 1 << 20)).isEmpty());

        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be in 256..1048576 (a number of bytes like 16384 or 16KiB), was 2GiB",
                "must be a number of bytes like 16384 or 16KiB, was \"lots\"",
                "must be in 256..1048576 (a number of bytes like 16384 or 16KiB), was 99999999999GiB");
    }

    @Test
    void aPercentageIsWholeWithOrWithoutTheSign() {
        ConfigNode root = parse("a: 20\nb: 35%\nc: 120%\nd: 2.5\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asPercent(problems, 1, 100)).hasValue(20);
        assertThat(root.get("b").orElseThrow().asPercent(problems, 1, 100)).hasValue(35);
        assertThat(root.get("c").orElseThrow().asPercent(problems, 1, 100)).isEmpty();
        assertThat(root.get("d").orElseThrow().asPercent(problems, 1, 100)).isEmpty();

        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be in 1..100 (a whole percentage like 20), was 120%",
                "must be a whole percentage like 20, was 2.5");
    }

    @Test
    void onOffAcceptsBothSpellingsAndBooleansOnlyYamlBooleans() {
        ConfigNode root = parse("a: on\nb: off\nc: true\nd: \"yes please\"\ne: \"true\"\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asOnOff(problems)).hasValue(true);
        assertThat(root.get("b").orElseThrow().asOnOff(problems)).hasValue(false);
        assertThat(root.get("c").orElseThrow().asBoolean(problems)).hasValue(true);
        assertThat(root.get("d").orElseThrow().asOnOff(problems)).isEmpty();
        assertThat(root.get("a").orElseThrow().asBoolean(problems)).hasValue(true); // YAML 1.1 reads on as a boolean
        assertThat(root.get("b").orElseThrow().asBoolean(problems)).hasValue(false);
        assertThat(root.get("e").orElseThrow().asBoolean(problems)).isEmpty();

        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be true, false, on or off, was \"yes please\"", "must be true or false, was \"true\"");
    }

    enum Criticality { CRITICAL_PLUS, CRITICAL, SHEDDABLE }

    @Test
    void anEnumReadsInAnyCaseWithDashOrUnderscoreAndSuggestsTheNearest() {
        ConfigNode root = parse("a: sheddable\nb: CRITICAL_PLUS\nc: critical-plus\nd: shedable\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asEnum(problems, Criticality.class)).hasValue(Criticality.SHEDDABLE);
        assertThat(root.get("b").orElseThrow().asEnum(problems, Criticality.class)).hasValue(Criticality.CRITICAL_PLUS);
        assertThat(root.get("c").orElseThrow().asEnum(problems, Criticality.class)).hasValue(Criticality.CRITICAL_PLUS);
        assertThat(root.get("d").orElseThrow().asEnum(problems, Criticality.class)).isEmpty();

        assertThat(located(problems)).containsExactly("c.yaml:4: d: must be one of critical, critical-plus, "
                + "sheddable, was \"shedable\"; did you mean \"sheddable\"?");
    }

    @Test
    void aChoiceListsItsOptions() {
        ConfigNode root = parse("a: epol\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asChoice(problems, Map.of("auto", 1, "nio", 2, "epoll", 3))).isEmpty();

        assertThat(problems.list()).extracting(ConfigProblem::message)
                .containsExactly("must be one of auto, epoll, nio, was \"epol\"; did you mean \"epoll\"?");
    }

    @Test
    void anAddressIsAPortOrHostPortWithBracketedIpv6() {
        ConfigNode root = parse("a: 8080\nb: \"127.0.0.1:9000\"\nc: \"[::1]:7000\"\nd: \"host:70000\"\ne: \"::1:80\"\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asHostPort(problems, "0.0.0.0")).hasValue(new HostPort("0.0.0.0", 8080));
        assertThat(root.get("b").orElseThrow().asHostPort(problems, "x")).hasValue(new HostPort("127.0.0.1", 9000));
        assertThat(root.get("c").orElseThrow().asHostPort(problems, "x")).hasValue(new HostPort("::1", 7000));
        assertThat(root.get("d").orElseThrow().asHostPort(problems, "x")).isEmpty();
        assertThat(root.get("e").orElseThrow().asHostPort(problems, "x")).isEmpty();

        assertThat(new HostPort("::1", 7000)).hasToString("[::1]:7000");
        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be a port or host:port (port 0..65535), was \"host:70000\"",
                "must be a port or host:port (port 0..65535), was \"::1:80\"");
    }

    @Test
    void aNumberIsAnIntegerOrADecimalInRange() {
        ConfigNode root = parse("a: 2\nb: 0.5\nc: 1e400\nd: \"3\"\n");
        ConfigProblems problems = new ConfigProblems();

        assertThat(root.get("a").orElseThrow().asDouble(problems, 0, 10)).hasValue(2.0);
        assertThat(root.get("b").orElseThrow().asDouble(problems, 1, 10)).isEmpty();
        assertThat(root.get("c").orElseThrow().asDouble(problems, 0, 10)).isEmpty();
        assertThat(root.get("d").orElseThrow().asDouble(problems, 0, 10)).isEmpty();

        assertThat(problems.list()).extracting(ConfigProblem::message).containsExactly(
                "must be in 1..10, was 0.5", "must be a number, was 1e400", "must be a number, was \"3\"");
    }

    @Test
    void snakeCaseKeysReadAsKebabCaseWithAWarningEach() {
        ConfigNode root = parse("""
                fleet:
                  app_retry:
                    reuse_idempotency_key: true
                  clients: 2
                """);
        ConfigProblems problems = new ConfigProblems();

        ConfigNode kebab = root.kebabCaseKeys(problems);

        ConfigNode appRetry = kebab.get("fleet").orElseThrow().get("app-retry").orElseThrow();
        assertThat(appRetry.path()).isEqualTo("fleet.app-retry");
        assertThat(appRetry.get("reuse-idempotency-key").orElseThrow().path())
                .isEqualTo("fleet.app-retry.reuse-idempotency-key");
        assertThat(problems.isEmpty()).isTrue();
        assertThat(problems.warnings()).extracting(ConfigProblem::toString).containsExactly(
                "c.yaml:2: fleet.app-retry: \"app_retry\" is the deprecated spelling; write \"app-retry\"",
                "c.yaml:3: fleet.app-retry.reuse-idempotency-key: \"reuse_idempotency_key\" is the deprecated "
                        + "spelling; write \"reuse-idempotency-key\"");
    }

    @Test
    void aKeyWrittenBothWaysIsADuplicate() {
        ConfigNode root = parse("max-wait: 1s\nmax_wait: 2s\n");
        ConfigProblems problems = new ConfigProblems();

        root.kebabCaseKeys(problems);

        assertThat(located(problems)).containsExactly("c.yaml:2: max-wait: duplicate key (first at line 1)");
    }

    @Test
    void aMisspelledSectionOfThisReaderIsAProblemAndOthersAreLeftAlone() {
        ConfigNode root = parse("kyes: {}\nroutes: []\nplans: {}\n");
        ConfigProblems problems = new ConfigProblems();

        root.rejectMisspelledSections(problems, Set.of("plans", "keys", "key-file"));

        assertThat(located(problems)).containsExactly("c.yaml:1: kyes: unknown section \"kyes\"; did you mean \"keys\"?");
    }

    @Test
    void aFileOnDiskIsNamedAsGiven(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, "listen:\n  port: x\n");
        ConfigProblems problems = new ConfigProblems();

        ConfigNode.parse(file).get("listen").orElseThrow().get("port").orElseThrow().asLong(problems);

        assertThat(located(problems)).containsExactly(file + ":2: listen.port: must be an integer, was \"x\"");
    }
}
