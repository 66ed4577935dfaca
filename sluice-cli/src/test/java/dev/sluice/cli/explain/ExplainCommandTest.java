package dev.sluice.cli.explain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExplainCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path EXAMPLES =
            Path.of(System.getProperty("sluice.testdata")).getParent().resolve("examples/responses");

    @TempDir
    Path dir;

    private static JsonNode explain(String file) throws IOException {
        CliRun run = CliRun.of("explain", "--response", EXAMPLES.resolve(file).toString(), "--now", "2026-11-30T18:00:00Z");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.outLines()).hasSize(1);
        return JSON.readTree(run.out());
    }

    @Test
    void burstDenialPrintsTheDocumentedShape() throws IOException {
        CliRun run = CliRun.of("explain", "--response", EXAMPLES.resolve("429-rate-limited.http").toString());
        // the README's example: {"status":429,"kind":"rate_limited","dialect":"ietf-draft-11","retry_after_ms":...,
        // "cached":false,"policies":[{"name":"burst","quota":20,"window_s":2,"remaining":0,"reset_ms":...
        assertThat(run.out()).startsWith("{\"status\":429,\"kind\":\"rate_limited\",\"dialect\":\"ietf-draft-11\","
                + "\"retry_after_ms\":1000,\"cached\":false,\"policies\":[{\"name\":\"burst\",\"quota\":20,"
                + "\"window_s\":2,\"remaining\":0,\"reset_ms\":1000,");
    }

    @Test
    void dailyQuotaDenialAt1840IsQuotaExhaustedWithNineteenThousandTwoHundredSeconds() throws IOException {
        JsonNode s = explain("429-daily-quota.http"); // SPEC §3.4's body and header
        assertThat(s.get("kind").asText()).isEqualTo("quota_exhausted");
        assertThat(s.get("retry_after_ms").asLong()).isEqualTo(19_200_000L);
        assertThat(s.get("limit").asText()).isEqualTo("daily");
        assertThat(s.get("quota_reset_at").asText()).isEqualTo("2026-12-01T00:00:00Z");
    }

    @Test
    void specExampleAt1800ReportsSevenOfTheBurstAndTwoThousandThreeHundredTenOfTheDay() throws IOException {
        JsonNode s = explain("201-label-created.http"); // SPEC §2.1
        assertThat(s.get("kind").asText()).isEqualTo("ok");
        assertThat(s.get("wait_ms").isNull()).isTrue();
        JsonNode burst = s.get("policies").get(0);
        JsonNode daily = s.get("policies").get(1);
        assertThat(burst.get("remaining").asLong()).isEqualTo(7);
        assertThat(burst.get("reset_ms").asLong()).isEqualTo(2_000);
        assertThat(daily.get("remaining").asLong()).isEqualTo(2_310);
        assertThat(daily.get("reset_ms").asLong()).isEqualTo(21_600_000L);
        assertThat(daily.get("kind").asText()).isEqualTo("quota");
    }

    @Test
    void githubPrimaryLimitWaitsUntilTheResetMeasuredFromTheServersDate() throws IOException {
        // reset 21:48:42, Date 21:48:12: 30 s by the server's clock whatever --now says, plus the
        // 1 s margin an absolute reset gets (R04 scenario 2: 31 s)
        JsonNode s = explain("github-403-primary-limit.http");
        assertThat(s.get("kind").asText()).isEqualTo("rate_limited");
        assertThat(s.get("dialect").asText()).isEqualTo("github");
        assertThat(s.get("retry_after_ms").isNull()).isTrue();
        assertThat(s.get("wait_ms").asLong()).isEqualTo(31_000);
    }

    @Test
    void anthropic529IsOverloadedNotALimit() throws IOException {
        JsonNode s = explain("anthropic-529-overloaded.http"); // R09
        assertThat(s.get("kind").asText()).isEqualTo("overloaded");
        assertThat(s.get("policies")).isEmpty();
    }

    @Test
    void nowIsUsedOnlyWhenTheResponseHasNoDate() throws IOException {
        Path raw = Files.writeString(dir.resolve("r.http"),
                "HTTP/1.1 503 Service Unavailable\nRetry-After: Mon, 30 Nov 2026 18:00:30 GMT\n\n");
        CliRun run = CliRun.of("explain", "--response", raw.toString(), "--now", "2026-11-30T18:00:00Z");
        assertThat(JSON.readTree(run.out()).get("retry_after_ms").asLong()).isEqualTo(30_000);
        assertThat(JSON.readTree(run.out()).get("kind").asText()).isEqualTo("overloaded");
    }

    @Test
    void cachedResponseIsMarked() throws IOException {
        // SPEC §2.5: a response with Age comes from a cache; its RateLimit fields are not for pacing
        Path raw = Files.writeString(dir.resolve("r.http"),
                "HTTP/1.1 200 OK\r\nAge: 689\r\nRateLimit: \"burst\";r=0;t=2\r\n\r\n");
        CliRun run = CliRun.of("explain", "--response", raw.toString(), "--now", "2026-11-30T18:00:00Z");
        assertThat(JSON.readTree(run.out()).get("cached").asBoolean()).isTrue();
        assertThat(JSON.readTree(run.out()).get("wait_ms").isNull()).isTrue(); // r=0 of a cached copy paces nobody
    }

    @Test
    void textThatIsNotAnHttpResponseIsAOneLineErrorWithExitCodeTwo() throws IOException {
        Path raw = Files.writeString(dir.resolve("notes.txt"), "Retry-After: 5\n");
        CliRun run = CliRun.of("explain", "--response", raw.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains("notes.txt: line 1: expected a status line");
    }

    @Test
    void missingFileIsAOneLineErrorWithExitCodeTwo() {
        CliRun run = CliRun.of("explain", "--response", dir.resolve("absent.http").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("absent.http: no such file");
    }
}
