package dev.sluice.wire.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.RawHttpResponse;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The raw responses shipped under {@code examples/responses/} (read by {@code sluice explain}). */
class ShippedExamplesTest {

    @ParameterizedTest
    @CsvSource(nullValues = "-", value = {
        "201-label-created.http, ok, ietf-draft-11, -, daily",
        "429-daily-quota.http, quota_exhausted, ietf-draft-11, 19200000, daily",
        "429-rate-limited.http, rate_limited, ietf-draft-11, 1000, burst",
        "anthropic-529-overloaded.http, overloaded, anthropic, -, -",
        "github-403-primary-limit.http, rate_limited, github, -, core",
        "openai-429-tokens.http, rate_limited, openai, -, tokens",
    })
    void readsEachExample(String file, String kind, String dialect, Long retryAfterMillis, String mostRestrictive)
            throws IOException {
        RateLimitSnapshot s = DialectRegistry.standard().read(parse(file), Instant.parse("2026-11-30T18:00:00Z"));
        assertThat(s.outcome().wireName()).isEqualTo(kind);
        assertThat(s.dialect()).isEqualTo(dialect);
        assertThat(s.retryAfterMillis()).isEqualTo(retryAfterMillis);
        assertThat(s.mostRestrictive().map(p -> p.name()).orElse(null)).isEqualTo(mostRestrictive);
    }

    @ParameterizedTest
    @CsvSource({"github-403-primary-limit.http, 30", "openai-429-tokens.http, 360", "429-daily-quota.http, 19200"})
    void theLongestWaitIsTheExhaustedPolicysReset(String file, long seconds) throws IOException {
        RateLimitSnapshot s = DialectRegistry.standard().read(parse(file), Instant.parse("2026-11-30T18:00:00Z"));
        assertThat(s.longestWait()).isEqualTo(Duration.ofSeconds(seconds));
    }

    /** A shipped raw HTTP/1.1 response file. */
    private static ResponseView parse(String file) throws IOException {
        Path examples = Path.of(System.getProperty("sluice.testdata")).getParent().resolve("examples/responses");
        return RawHttpResponse.parse(Files.readAllBytes(examples.resolve(file)));
    }
}
