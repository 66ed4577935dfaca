package dev.sluice.wire.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.wire.problem.ProblemDetails;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the RFC 9457 reader: {@code ProblemDetails.parse} never throws (it returns empty for
 * anything that is not a problem), and a parsed problem writes JSON that parses back to a problem.
 * Seeds: every JSON body of {@code testdata/header-vectors}.
 */
@Tag("slow")
public class ProblemDetailsFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new ProblemDetailsFuzzTest().neverThrowsAndRoundTrips(input);
    }

    @FuzzTest(maxDuration = "5s")
    void neverThrowsAndRoundTrips(byte[] input) {
        String json = new String(input, StandardCharsets.UTF_8);
        ProblemDetails.parse(json).ifPresent(p -> {
            p.limit();
            p.retryAfterSeconds();
            p.violatedPolicies();
            p.typeCode();
            if (ProblemDetails.parse(p.toJson()).isEmpty()) {
                throw new AssertionError("written problem does not parse back: " + p.toJson());
            }
        });
    }
}
