package dev.sluice.wire.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.wire.retryafter.RetryAfter;
import dev.sluice.wire.retryafter.RetryAfterHint;
import dev.sluice.wire.value.GoDuration;
import dev.sluice.wire.value.HttpDate;
import dev.sluice.wire.value.Rfc3339;
import dev.sluice.wire.value.WireNumbers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes {@code Retry-After} and the date and duration forms behind it: none of them throws on any
 * text (their documented contract), a hint is never negative nor beyond
 * {@link WireNumbers#MAX_DURATION}, and a value {@link HttpDate#conforms} accepts also parses.
 * Seeds: every {@code Retry-After}, {@code Date} and reset value of {@code testdata/header-vectors}.
 */
@Tag("slow")
public class RetryAfterFuzzTest {

    private static final Instant NOW = Instant.parse("2026-11-30T18:00:00Z");

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new RetryAfterFuzzTest().neverThrowsAndNeverGoesNegative(input);
    }

    @FuzzTest(maxDuration = "5s")
    void neverThrowsAndNeverGoesNegative(byte[] input) {
        String value = new String(input, StandardCharsets.UTF_8);
        for (Instant now : new Instant[] {NOW, Instant.EPOCH, Instant.MAX, Instant.MIN}) {
            if (RetryAfter.parse(value, now) instanceof RetryAfterHint.Delay d) {
                check(d.duration(), value);
            }
            HttpDate.parse(value, now);
        }
        if (RetryAfter.parseMillis(value) instanceof RetryAfterHint.Delay d) {
            check(d.duration(), value);
        }
        if (HttpDate.conforms(value) && HttpDate.parse(value, NOW) == null) {
            throw new AssertionError("conforms but does not parse: " + value);
        }
        Duration go = GoDuration.parse(value);
        if (go != null && go.isNegative()) {
            throw new AssertionError("negative Go duration from " + value);
        }
        Rfc3339.parse(value);
    }

    private static void check(Duration d, String value) {
        if (d.isNegative() || d.compareTo(WireNumbers.MAX_DURATION) > 0) {
            throw new AssertionError("hint " + d + " from " + value);
        }
    }
}
