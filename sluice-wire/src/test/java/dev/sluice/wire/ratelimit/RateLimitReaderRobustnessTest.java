package dev.sluice.wire.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The reader never throws on any field text: it skips, ignores, and says why (SPEC §2.1). */
class RateLimitReaderRobustnessTest {

    private static final String SPEC_POLICY = "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400";
    private static final String SPEC_RATELIMIT = "\"burst\";r=7;t=2, \"daily\";r=2310;t=21600";
    private static final String ODD = " \t,;=()\":?*-.019qrtwpkuAz\\/_%@:é\u0000\u007f";

    @Property(tries = 3000, seed = "3317744196118529920")
    void readingNeverThrowsAndAlwaysExplainsAnEmptyResult(@ForAll("fieldText") String line1, @ForAll("fieldText") String line2) {
        for (List<String> lines : List.of(List.of(line1), List.of(line1, line2))) {
            ReadResult<QuotaPolicy> policies = RateLimitReader.readPolicies(lines, MemberNames.STRINGS_OR_TOKENS);
            ReadResult<ServiceLimit> limits = RateLimitReader.readServiceLimits(lines);

            assertThat(policies.values()).allSatisfy(p -> assertThat(p.quota()).isNotNegative());
            assertThat(limits.values()).allSatisfy(l -> assertThat(l.remaining()).isNotNegative());
            if (limits.values().isEmpty() && !lines.stream().allMatch(String::isBlank)) {
                assertThat(limits.problems()).isNotEmpty();
            }
        }
    }

    @Provide
    Arbitrary<String> fieldText() {
        Arbitrary<String> garbage = Arbitraries.strings().withChars(ODD.toCharArray()).ofMaxLength(40);
        Arbitrary<String> mutatedSpecLine = Arbitraries.of(SPEC_POLICY, SPEC_RATELIMIT)
                .flatMap(line -> Arbitraries.integers().between(0, line.length() - 1).flatMap(at ->
                        Arbitraries.of(ODD.toCharArray()).map(c ->
                                line.substring(0, at) + c + line.substring(at + 1))));
        return Arbitraries.oneOf(garbage, mutatedSpecLine);
    }
}
