package dev.sluice.wire.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.wire.sf.SfByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitWriterTest {

    // SPEC §2.1: a Free key (10 req/s, burst 20, 10,000 a day) at 18:00 UTC
    private static final List<QuotaPolicy> FREE_PLAN =
            List.of(QuotaPolicy.of("burst", 20, 2), QuotaPolicy.of("daily", 10_000, 86_400));

    @Test
    void specExamplePolicyLineIsWrittenExactly() {
        assertThat(RateLimitWriter.policies(FREE_PLAN))
                .isEqualTo("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
    }

    @Test
    void specExampleRateLimitLineIsWrittenExactlyFromRecords() {
        String line = RateLimitWriter.serviceLimits(
                List.of(ServiceLimit.of("burst", 7, 2), ServiceLimit.of("daily", 2310, 21_600)));

        assertThat(line).isEqualTo("\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
    }

    @Test
    void specExampleRateLimitLineIsWrittenExactlyFromPlainValues() {
        StringBuilder sb = new StringBuilder();
        RateLimitWriter.appendServiceLimit(sb, "burst", 7, 2);
        sb.append(RateLimitWriter.MEMBER_SEPARATOR);
        RateLimitWriter.appendServiceLimit(sb, "daily", 2310, 21_600);

        assertThat(sb).hasToString("\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
    }

    @Test
    void negativeRemainingOrResetIsRefusedAndNothingIsAppendedR02() {
        StringBuilder sb = new StringBuilder("\"burst\";r=7;t=2, ");

        assertThatThrownBy(() -> RateLimitWriter.appendServiceLimit(sb, "daily", 2310, -43))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t must not be negative");
        assertThatThrownBy(() -> RateLimitWriter.appendServiceLimit(sb, "daily", -1, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("r must not be negative");
        assertThat(sb).hasToString("\"burst\";r=7;t=2, ");
    }

    @Test
    void recordsRefuseNegativeValuesSoTheyCannotBeWrittenR02() {
        assertThatThrownBy(() -> ServiceLimit.of("burst", 0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServiceLimit.of("burst", -5, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QuotaPolicy.of("burst", -20, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QuotaPolicy.of("burst", 20, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void integersBeyondFifteenDigitsAreRefused() {
        assertThatThrownBy(() -> RateLimitWriter.appendServiceLimit(new StringBuilder(), "x", 1_000_000_000_000_000L, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("15 digits");
    }

    @Test
    void zeroRemainingAndZeroResetAreWritten() {
        assertThat(RateLimitWriter.appendServiceLimit(new StringBuilder(), "burst", 0, 0))
                .hasToString("\"burst\";r=0;t=0");
    }

    @Test
    void policyNamesAreQuotedAndEscaped() {
        assertThat(RateLimitWriter.policies(List.of(QuotaPolicy.of("a \"b\" \\c", 1, 1))))
                .isEqualTo("\"a \\\"b\\\" \\\\c\";q=1;w=1");
    }

    @Test
    void nonAsciiNamesCannotBeBuilt() {
        assertThatThrownBy(() -> QuotaPolicy.of("dåily", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("printable ASCII");
        assertThatThrownBy(() -> RateLimitWriter.appendServiceLimit(new StringBuilder(), "dåily", 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionalParametersAreWrittenInDraftOrderOnlyWhenPresent() {
        QuotaPolicy peruser = new QuotaPolicy("peruser", 65_535, 10L, QuotaPolicy.UNIT_CONTENT_BYTES,
                SfByteSequence.of("trial121323".getBytes(StandardCharsets.US_ASCII)));
        QuotaPolicy noWindow = new QuotaPolicy("quota", 10, null, null, null);

        assertThat(RateLimitWriter.policies(List.of(peruser, noWindow)))
                .isEqualTo("\"peruser\";q=65535;w=10;qu=\"content-bytes\";pk=:dHJpYWwxMjEzMjM=:, \"quota\";q=10");
        assertThat(RateLimitWriter.serviceLimits(List.of(new ServiceLimit("default", 999, null,
                        SfByteSequence.of("trial121323".getBytes(StandardCharsets.US_ASCII))))))
                .isEqualTo("\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:");
    }

    @Test
    void noPoliciesWriteAnEmptyValueMeaningOmitTheField() {
        assertThat(RateLimitWriter.policies(List.of())).isEmpty();
        assertThat(RateLimitWriter.serviceLimits(List.of())).isEmpty();
    }

    @Test
    void writtenLinesReadBackToTheSameRecords() {
        List<QuotaPolicy> policies = List.of(
                FREE_PLAN.get(0),
                new QuotaPolicy("bytes", 65_535, 10L, "content-bytes", SfByteSequence.of((byte) 0, (byte) 255)),
                new QuotaPolicy("custom-unit", 5, null, "tokens", null));
        List<ServiceLimit> limits = List.of(
                ServiceLimit.of("burst", 7, 2), new ServiceLimit("bytes", 3, null, SfByteSequence.of((byte) 1)));

        ReadResult<QuotaPolicy> readPolicies = RateLimitReader.readPolicies(RateLimitWriter.policies(policies));
        ReadResult<ServiceLimit> readLimits = RateLimitReader.readServiceLimits(RateLimitWriter.serviceLimits(limits));

        assertThat(readPolicies.values()).isEqualTo(policies);
        assertThat(readPolicies.isClean()).isTrue();
        assertThat(readLimits.values()).isEqualTo(limits);
        assertThat(readLimits.isClean()).isTrue();
    }
}
