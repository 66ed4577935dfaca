package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DialectRegistryTest {

    /** A user dialect: {@code X-Acme-Left: 3} means three requests left. */
    private static final Dialect ACME = new Dialect() {
        @Override
        public String id() {
            return "acme";
        }

        @Override
        public Optional<DialectReading> read(DialectInput in) {
            Long left = in.count("X-Acme-Left");
            return left == null ? Optional.empty()
                    : Optional.of(DialectReading.builder().policy(PolicySnapshot.builder().name("acme").remaining(left).build()).build());
        }
    };

    @Test
    void standardDialectIdsAreStableAndUnique() {
        List<String> ids = DialectRegistry.standard().dialects().stream().map(Dialect::id).toList();
        assertThat(ids).doesNotHaveDuplicates().startsWith("ietf-draft-11", "atlassian-beta", "ietf-draft-07")
                .contains("ietf-draft-03", "github", "openai", "anthropic", "discord", "shopify", "google", "credits",
                        "x-ratelimit", "rfc9457", "error-body")
                .endsWith("retry-after");
        assertThat(ids).allMatch(id -> id.equals(id.toLowerCase(java.util.Locale.ROOT)));
    }

    @Test
    void aUserDialectRegisteredFirstTakesPrecedence() {
        DialectRegistry registry = DialectRegistry.builder().register(ACME).registerStandard().build();
        RateLimitSnapshot s = registry.read(Responses.response(200, null, "X-Acme-Left", "3",
                "X-RateLimit-Remaining", "99"), Responses.LOCAL_NOW);
        assertThat(s.dialect()).isEqualTo("acme");
        assertThat(s.policies().get(0).remaining()).isEqualTo(3L);
        // registered last, it only answers what nobody else recognises
        DialectRegistry last = DialectRegistry.standard().toBuilder().register(ACME).build();
        assertThat(last.read(Responses.response(200, null, "X-Acme-Left", "3", "X-RateLimit-Remaining", "99"),
                Responses.LOCAL_NOW).dialect()).isEqualTo("x-ratelimit");
    }

    @Test
    void registerBeforeAndRemovePlaceDialectsByIdAndRefuseUnknownIds() {
        DialectRegistry r = DialectRegistry.standard().toBuilder().registerBefore("x-ratelimit", ACME).remove("github").build();
        List<String> ids = r.dialects().stream().map(Dialect::id).toList();
        assertThat(ids.indexOf("acme")).isEqualTo(ids.indexOf("x-ratelimit") - 1);
        assertThat(ids).doesNotContain("github");
        assertThatThrownBy(() -> DialectRegistry.builder().registerBefore("nope", ACME))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
    }

    @Test
    void aDialectThatThrowsIsSkipped() {
        Dialect broken = new Dialect() {
            @Override
            public String id() {
                return "broken";
            }

            @Override
            public Optional<DialectReading> read(DialectInput in) {
                throw new IllegalStateException("bug");
            }
        };
        RateLimitSnapshot s = DialectRegistry.builder().register(broken).registerStandard().build()
                .read(Responses.response(429, null, "Retry-After", "5"), Responses.LOCAL_NOW);
        assertThat(s.dialect()).isEqualTo("retry-after");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(5));
    }

    /** SPEC §2.5: a response with Age came from a cache; its fields must not drive pacing. */
    @Test
    void ageMarksTheSnapshotCached() {
        RateLimitSnapshot s = read(200, null, "Age", "689", "RateLimit", "\"default\";r=50;t=30");
        assertThat(s.cached()).isTrue();
        assertThat(s.usableForPacing()).isFalse();
        assertThat(read(200, null, "RateLimit", "\"default\";r=50;t=30").cached()).isFalse();
    }

    /** SPEC §1, §3.4, §4.2: status rules; rate limits also arrive as 400, 403 and 422. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "200|-|ok",
        "304|-|ok",
        "404|-|client_error",
        "409|-|client_error",
        "429|-|rate_limited",
        "420|-|rate_limited",
        "400|-|client_error",
        "403|Forbidden|client_error",
        "403|Too Many Requests|rate_limited",
        "422|slow down please|rate_limited",
        "500|-|server_error",
        "502|rate limit|server_error",
        "503|-|overloaded",
        "529|-|overloaded",
    })
    void statusRules(int status, String body, String kind) {
        assertThat(read(status, body).outcome().wireName()).isEqualTo(kind);
    }

    @Test
    void aLimitStatusWithEvidenceIsALimitAndWithoutIsNot() {
        assertThat(read(400, null, "RateLimit", "\"default\";r=0;t=37").outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(read(400, null, "RateLimit", "\"default\";r=5;t=37").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(read(403, null, "Retry-After", "37").outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    @Test
    void aSuccessWithNothingLeftIsStillOk() {
        assertThat(read(200, null, "RateLimit", "\"daily\";r=0;t=48").outcome()).isEqualTo(Outcome.OK);
    }

    /** R09: overload is never a quota matter, whatever the body says. */
    @Test
    void r09ServiceUnavailableIsOverloadedEvenWithAQuotaBody() {
        RateLimitSnapshot s = read(503, "{\"error\":\"Daily limit exceeded\"}", "Retry-After", "10");
        assertThat(s.outcome()).isEqualTo(Outcome.OVERLOADED);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.quotaResetAt()).isNull();
    }

    @ParameterizedTest
    @CsvSource({
        "https://api.example.com/errors/rate_limited, rate_limited",
        "https://api.example.com/errors/quota_exhausted, quota_exhausted",
        "https://api.example.com/errors/overloaded, overloaded",
        "https://iana.org/assignments/http-problem-types#quota-exceeded, quota_exhausted",
        "https://iana.org/assignments/http-problem-types#abnormal-usage-detected, rate_limited",
        "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity, overloaded",
    })
    void problemTypesDecideTheKindOfA429(String type, String kind) {
        RateLimitSnapshot s = read(429, "{\"type\":\"" + type + "\",\"status\":429}", "Content-Type", "application/problem+json");
        assertThat(s.outcome().wireName()).isEqualTo(kind);
    }

    @Test
    void aProblemLimitNamingAQuotaPolicyIsQuotaExhausted() {
        RateLimitSnapshot s = read(429, "{\"title\":\"Too Many Requests\",\"status\":429,\"limit\":\"monthly\"}",
                "Content-Type", "application/problem+json", "Retry-After", "3600");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.violatedPolicy()).isEqualTo("monthly");
        assertThat(s.quotaResetAt()).isEqualTo(Responses.LOCAL_NOW.plusSeconds(3600));
    }

    @Test
    void theProblemsRetryAfterIsTheLastResort() {
        assertThat(read(429, "{\"type\":\"https://x/errors/rate_limited\",\"retry_after_s\":7}",
                "Content-Type", "application/problem+json").retryAfter()).isEqualTo(Duration.ofSeconds(7));
    }

    /** R06: with several policies the pacer obeys the most restrictive one, the longest wait. */
    @Test
    void r06MostRestrictiveIsTheLongestWaitingExhaustedPolicy() {
        RateLimitSnapshot s = read(429, null, "RateLimit", "\"burst\";r=0;t=2, \"hourly\";r=0;t=1800, \"daily\";r=40;t=21600");
        assertThat(s.mostRestrictive().orElseThrow().name()).isEqualTo("hourly");
        assertThat(s.longestWait()).isEqualTo(Duration.ofSeconds(1800));
    }

    @Test
    void r06WithoutExhaustionMostRestrictiveIsTheSmallestAllowancePerSecond() {
        // burst: 5 left over 1 s = 5/s; daily: 100 left over 21,600 s = 0.005/s
        RateLimitSnapshot s = read(200, null, "RateLimit", "\"burst\";r=5;t=1, \"daily\";r=100;t=21600");
        assertThat(s.mostRestrictive().orElseThrow().name()).isEqualTo("daily");
        assertThat(s.longestWait()).isZero();
    }

    @Test
    void longestWaitNeverUndercutsRetryAfter() {
        RateLimitSnapshot s = read(429, null, "Retry-After", "10", "RateLimit", "\"burst\";r=0;t=2");
        assertThat(s.longestWait()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aResponseWithNoLimitInformationHasNoDialect() {
        RateLimitSnapshot s = read(200, "{\"hello\":\"world\"}", "Content-Type", "application/json");
        assertThat(s.dialect()).isNull();
        assertThat(s.policies()).isEmpty();
        assertThat(s.retryAfter()).isNull();
        assertThat(s.mostRestrictive()).isEmpty();
    }
}
