package dev.sluice.wire.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.wire.dialect.DialectRegistry;
import dev.sluice.wire.http.MalformedResponseException;
import dev.sluice.wire.http.RawHttpResponse;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes what {@code sluice explain} runs: {@link RawHttpResponse#parse} throws only
 * {@link MalformedResponseException}, and whatever it reads goes through
 * {@link DialectRegistry#read} without an exception, to a snapshot whose waits are never negative.
 * Seeds: every header vector of {@code testdata/header-vectors} as a raw HTTP/1.1 response.
 */
@Tag("slow")
public class RawResponseFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new RawResponseFuzzTest().readsOrRejectsWithItsOwnException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void readsOrRejectsWithItsOwnException(byte[] input) {
        ResponseView view;
        try {
            view = RawHttpResponse.parse(input);
        } catch (MalformedResponseException expected) {
            return;
        }
        Snapshots.check(DialectRegistry.standard().read(view, Instant.parse("2026-11-30T18:00:00Z")));
    }
}
