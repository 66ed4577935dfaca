package dev.sluice.wire.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.sf.SfByteSequence;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitReaderTest {

    @Test
    void specExampleReadsToTypedRecords() {
        // SPEC §2.1
        HttpFields fields = HttpFields.of(
                "RateLimit-Policy", "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400",
                "RateLimit", "\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");

        assertThat(RateLimitReader.readPolicies(fields).values()).containsExactly(
                QuotaPolicy.of("burst", 20, 2), QuotaPolicy.of("daily", 10_000, 86_400));
        assertThat(RateLimitReader.readServiceLimits(fields).values()).containsExactly(
                ServiceLimit.of("burst", 7, 2), ServiceLimit.of("daily", 2310, 21_600));
    }

    @Test
    void draft8SampleReadsWithTwoRateLimitLinesOrOneJoinedLineR06() {
        HttpFields twoLines = HttpFields.builder()
                .add("RateLimit-Policy", "\"protection\";q=100;w=60, \"quota\";q=10000;w=86400")
                .add("RateLimit", "\"protection\";r=50;t=30")
                .add("RateLimit", "\"quota\";r=9000;t=3600")
                .build();
        HttpFields joinedByIntermediary = HttpFields.of(
                "RateLimit", "\"protection\";r=50;t=30, \"quota\";r=9000;t=3600");

        assertThat(RateLimitReader.readPolicies(twoLines).values()).containsExactly(
                QuotaPolicy.of("protection", 100, 60), QuotaPolicy.of("quota", 10_000, 86_400));
        List<ServiceLimit> expected =
                List.of(ServiceLimit.of("protection", 50, 30), ServiceLimit.of("quota", 9000, 3600));
        assertThat(RateLimitReader.readServiceLimits(twoLines).values()).isEqualTo(expected);
        assertThat(RateLimitReader.readServiceLimits(joinedByIntermediary).values()).isEqualTo(expected);
    }

    @Test
    void unknownParametersAreIgnoredSilently() {
        ReadResult<QuotaPolicy> read = RateLimitReader.readPolicies("\"sliding\";q=100;w=60;burst=1000;x=?1");

        assertThat(read.values()).containsExactly(QuotaPolicy.of("sliding", 100, 60));
        assertThat(read.isClean()).isTrue();
    }

    @Test
    void membersThatAreNotStringItemsAreSkippedAndTheRestKept() {
        ReadResult<QuotaPolicy> read = RateLimitReader.readPolicies(
                "(\"a\" \"b\");q=1, 42;q=5, \"daily\";q=10000;w=86400, ?1;q=3, quota;q=7");

        assertThat(read.values()).containsExactly(QuotaPolicy.of("daily", 10_000, 86_400));
        assertThat(read.problems()).hasSize(4)
                .anySatisfy(p -> assertThat(p).contains("member 1").contains("Inner List"))
                .anySatisfy(p -> assertThat(p).contains("member 2").contains("the Integer 42"))
                .anySatisfy(p -> assertThat(p).contains("member 5").contains("the Token quota"));
    }

    @Test
    void aMemberLackingItsRequiredIntegerIsSkipped() {
        ReadResult<QuotaPolicy> policies =
                RateLimitReader.readPolicies("\"a\";w=60, \"b\";q=1.5, \"c\";q=-1, \"d\";q=\"10\", \"e\";q=0");
        ReadResult<ServiceLimit> limits = RateLimitReader.readServiceLimits("\"a\";t=1, \"b\";r=-3;t=1, \"c\";r=4");

        assertThat(policies.values()).containsExactly(new QuotaPolicy("e", 0, null, null, null));
        assertThat(policies.problems()).hasSize(4).allSatisfy(p -> assertThat(p).contains("q (required)"));
        assertThat(limits.values()).containsExactly(new ServiceLimit("c", 4, null, null));
        assertThat(limits.problems()).hasSize(2).allSatisfy(p -> assertThat(p).contains("r (required)"));
    }

    @Test
    void knownOptionalParametersOfTheWrongTypeAreIgnoredAsIfAbsent() {
        ReadResult<QuotaPolicy> policies =
                RateLimitReader.readPolicies("\"a\";q=10;w=1.5;qu=requests;pk=\"notbytes\", \"b\";q=10;w=0");
        ReadResult<ServiceLimit> limits = RateLimitReader.readServiceLimits("\"a\";r=1;t=-5");

        assertThat(policies.values()).containsExactly(
                new QuotaPolicy("a", 10, null, null, null), new QuotaPolicy("b", 10, null, null, null));
        assertThat(policies.problems()).hasSize(4);
        assertThat(limits.values()).containsExactly(new ServiceLimit("a", 1, null, null));
        assertThat(limits.problems()).singleElement().asString().contains("t ignored");
    }

    @Test
    void unknownQuotaUnitsAreKeptAsText() {
        QuotaPolicy policy = RateLimitReader.readPolicies("\"t\";q=40000;w=60;qu=\"tokens\"").values().get(0);
        QuotaPolicy noUnit = RateLimitReader.readPolicies("\"r\";q=40;w=60").values().get(0);

        assertThat(policy.quotaUnit()).isEqualTo("tokens");
        assertThat(noUnit.quotaUnit()).isNull();
        assertThat(noUnit.effectiveQuotaUnit()).isEqualTo(QuotaPolicy.UNIT_REQUESTS);
    }

    @Test
    void tokenNamesAreSkippedByDefaultAndReadWhenAskedFor() {
        HttpFields fields = HttpFields.of("RateLimit-Policy", "quota;q=100;w=1");

        ReadResult<QuotaPolicy> strict = RateLimitReader.readPolicies(fields);
        ReadResult<QuotaPolicy> lenient =
                RateLimitReader.readPolicies(fields, "RateLimit-Policy", MemberNames.STRINGS_OR_TOKENS);

        assertThat(strict.values()).isEmpty();
        assertThat(strict.problems()).singleElement().asString().contains("not a String");
        assertThat(lenient.values()).containsExactly(QuotaPolicy.of("quota", 100, 1));
    }

    @Test
    void aFieldThatIsNotAListYieldsNothingAndSaysWhere() {
        ReadResult<ServiceLimit> read = RateLimitReader.readServiceLimits("\"burst\";r=7;t=2,");

        assertThat(read.values()).isEmpty();
        assertThat(read.problems()).singleElement().asString()
                .contains("not a structured-field List").contains("offset 16"); // the end of the 16-character value
    }

    @Test
    void oneMalformedLineMakesTheCombinedFieldUnusable() {
        // RFC 9651 §4.2: lines are combined before parsing; a failure discards the whole field
        ReadResult<ServiceLimit> read =
                RateLimitReader.readServiceLimits(List.of("\"burst\";r=7;t=2", "limit=100, remaining=50"));

        assertThat(read.values()).isEmpty();
        assertThat(read.problems()).hasSize(1);
    }

    @Test
    void anAbsentFieldIsEmptyAndClean() {
        ReadResult<QuotaPolicy> read = RateLimitReader.readPolicies(HttpFields.of("Retry-After", "5"));

        assertThat(read.values()).isEmpty();
        assertThat(read.isClean()).isTrue();
    }

    @Test
    void partitionKeysCompareByDecodedBytesWhateverThePadBits() {
        // testdata/header-vectors/ietf-ratelimit-08-...json, ietf10-policy-partition-key: non-zero pad bits
        QuotaPolicy sent = RateLimitReader.readPolicies("\"peruser\";q=100;w=60;pk=:cHsdsRa894==:").values().get(0);
        QuotaPolicy canonical =
                RateLimitReader.readPolicies("\"peruser\";q=100;w=60;pk=:cHsdsRa89w==:").values().get(0);

        assertThat(sent).isEqualTo(canonical);
        assertThat(sent.partitionKey()).isEqualTo(SfByteSequence.of(Base64.getDecoder().decode("cHsdsRa89w==")));
        assertThat(RateLimitWriter.policies(List.of(sent))).isEqualTo("\"peruser\";q=100;w=60;pk=:cHsdsRa89w==:");
    }
}
