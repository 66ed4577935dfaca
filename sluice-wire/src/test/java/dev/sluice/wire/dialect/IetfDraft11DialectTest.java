package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static dev.sluice.wire.dialect.Responses.readWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IetfDraft11DialectTest {

    private static final String DATE_1800 = "Mon, 30 Nov 2026 18:00:00 GMT";
    private static final String DATE_1840 = "Mon, 30 Nov 2026 18:40:00 GMT";
    // SPEC §2.1: Free key (10 req/s, burst 20, 10,000 a day) at 18:00 UTC
    private static final String POLICY = "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400";

    @Test
    void specExampleJoinsEachServiceLimitWithItsPolicy() {
        RateLimitSnapshot s = read(200, null, "Date", DATE_1800, "RateLimit-Policy", POLICY,
                "RateLimit", "\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
        assertThat(s.dialect()).isEqualTo("ietf-draft-11");
        assertThat(s.outcome()).isEqualTo(Outcome.OK);
        assertThat(s.policies()).containsExactly(
                new PolicySnapshot("burst", 20L, 2L, 7L, Duration.ofSeconds(2), "requests", PolicyKind.BURST, null,
                        Instant.parse("2026-11-30T18:00:02Z"), Map.of(), false),
                new PolicySnapshot("daily", 10_000L, 86_400L, 2_310L, Duration.ofSeconds(21_600), "requests",
                        PolicyKind.QUOTA, null, Instant.parse("2026-12-01T00:00:00Z"), Map.of(), false));
    }

    @Test
    void r06TwoFieldLinesReadLikeTheirCommaJoinedValue() {
        ResponseView joined = Responses.response(200, null, "RateLimit", "\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
        ResponseView split = new ResponseView(200, HttpFields.builder()
                .add("RateLimit", "\"burst\";r=7;t=2").add("RateLimit", "\"daily\";r=2310;t=21600").build(), null);
        assertThat(DialectRegistry.standard().read(split, Responses.LOCAL_NOW).policies())
                .isEqualTo(DialectRegistry.standard().read(joined, Responses.LOCAL_NOW).policies())
                .hasSize(2);
    }

    @Test
    void r06Draft8NamedPoliciesSample() {
        RateLimitSnapshot s = read(200, null,
                "RateLimit-Policy", "\"protection\";q=100;w=60, \"quota\";q=10000;w=86400",
                "RateLimit", "\"protection\";r=50;t=30");
        PolicySnapshot protection = s.policies().get(0);
        assertThat(protection.name()).isEqualTo("protection");
        assertThat(protection.remaining()).isEqualTo(50L);
        assertThat(protection.resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(protection.quota()).isEqualTo(100L);
        assertThat(protection.windowSeconds()).isEqualTo(60L);
        assertThat(s.policy("quota").orElseThrow().kind()).isEqualTo(PolicyKind.QUOTA);
    }

    @Test
    void specSection21TokenNamedMembersAreSkipped() {
        assertThat(readWith(IetfDraft11Dialect.standard(), 200, null,
                "RateLimit-Policy", "quota;q=100;w=1", "RateLimit", "quota;r=5;t=1")).isEmpty();
        RateLimitSnapshot mixed = read(200, null, "RateLimit", "quota;r=5;t=1, \"burst\";r=3;t=1");
        assertThat(mixed.policies()).extracting(PolicySnapshot::name).containsExactly("burst");
    }

    @Test
    void burstDenialIsRateLimitedAndNamesTheExhaustedBurst() {
        RateLimitSnapshot s = read(429, null, "Date", DATE_1800, "Retry-After", "1", "RateLimit-Policy", POLICY,
                "RateLimit", "\"burst\";r=0;t=1, \"daily\";r=2310;t=21600");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.violatedPolicy()).isEqualTo("burst");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.quotaResetAt()).isNull();
    }

    @Test
    void dailyDenialAt1840IsQuotaExhaustedUntilMidnightUtc() {
        String body = "{\"type\":\"https://api.example.com/errors/quota_exhausted\",\"title\":\"Daily quota exhausted\","
                + "\"status\":429,\"limit\":\"daily\",\"retry_after_s\":19200,\"violated-policies\":[\"daily\"]}";
        RateLimitSnapshot s = read(429, body, "Date", DATE_1840, "Retry-After", "19200",
                "Content-Type", "application/problem+json", "RateLimit-Policy", POLICY,
                "RateLimit", "\"burst\";r=20;t=0, \"daily\";r=0;t=19200");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.violatedPolicy()).isEqualTo("daily");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(19_200)); // SPEC §3.4: 5 h 20 min
        assertThat(s.quotaResetAt()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
    }

    @Test
    void ianaQuotaExceededTypeOnABurstDenialIsStillRateLimited() {
        // SPEC §3.4: with the IANA switch the edge sends #quota-exceeded for both kinds of 429
        String body = "{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"status\":429,\"limit\":\"burst\",\"violated-policies\":[\"burst\"]}";
        RateLimitSnapshot s = read(429, body, "Content-Type", "application/problem+json", "RateLimit-Policy", POLICY,
                "RateLimit", "\"burst\";r=0;t=1, \"daily\";r=2310;t=21600");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    @Test
    void snapshotCarriesEverythingSluiceExplainPrints() {
        RateLimitSnapshot s = read(429, null, "Retry-After", "5", "RateLimit-Policy", "\"burst\";q=20;w=2",
                "RateLimit", "\"burst\";r=0;t=1");
        // {"status":429,"kind":"rate_limited","dialect":"ietf-draft-11","retry_after_ms":5000,"cached":false,
        //  "policies":[{"name":"burst","quota":20,"window_s":2,"remaining":0,"reset_ms":1000}]}
        assertThat(s.status()).isEqualTo(429);
        assertThat(s.outcome().wireName()).isEqualTo("rate_limited");
        assertThat(s.dialect()).isEqualTo("ietf-draft-11");
        assertThat(s.retryAfterMillis()).isEqualTo(5000L);
        assertThat(s.cached()).isFalse();
        PolicySnapshot p = s.policies().get(0);
        assertThat(p.name()).isEqualTo("burst");
        assertThat(p.quota()).isEqualTo(20L);
        assertThat(p.windowSeconds()).isEqualTo(2L);
        assertThat(p.remaining()).isZero();
        assertThat(p.resetMillis()).isEqualTo(1000L);
    }

    @Test
    void partitionKeyAndUnregisteredParametersAreKeptAsAttributes() {
        RateLimitSnapshot s = read(200, null, "RateLimit-Policy",
                "\"peruser\";q=100;w=60;pk=:cHsdsRa894==:;burst=1000;label=gold");
        assertThat(s.policies().get(0).attributes())
                .containsEntry("pk", "cHsdsRa89w==") // canonical base64 of the decoded bytes
                .containsEntry("burst", "1000")
                .containsEntry("label", "gold");
    }

    @Test
    void aPrefixedInstanceReadsPrefixedFieldsOnly() {
        Dialect beta = IetfDraft11Dialect.withFieldPrefix("beta", "Beta-");
        assertThat(readWith(beta, 200, null, "RateLimit", "\"a\";r=1")).isEmpty();
        assertThat(readWith(beta, 200, null, "Beta-RateLimit", "\"a\";r=1").orElseThrow().policies()).hasSize(1);
    }
}
