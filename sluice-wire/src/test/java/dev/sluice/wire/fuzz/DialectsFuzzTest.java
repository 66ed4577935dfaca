package dev.sluice.wire.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.wire.dialect.Dialect;
import dev.sluice.wire.dialect.DialectInput;
import dev.sluice.wire.dialect.DialectRegistry;
import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes each standard dialect on its own (the registry hides a dialect that throws, so each is
 * called directly here): none may throw on any status, field or body, and the registry's snapshot
 * keeps its promises. The input is framed loosely so that the fuzzer controls every part: a first
 * line with the status, then {@code name: value} lines, an empty line, the body. Seeds: every
 * header vector of {@code testdata/header-vectors} in that framing.
 */
@Tag("slow")
public class DialectsFuzzTest {

    private static final Instant NOW = Instant.parse("2026-11-30T18:00:00Z");

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new DialectsFuzzTest().noDialectThrows(input);
    }

    @FuzzTest(maxDuration = "5s")
    void noDialectThrows(byte[] input) {
        ResponseView response = frame(new String(input, StandardCharsets.UTF_8));
        for (Dialect d : DialectRegistry.standardDialects()) {
            d.read(new DialectInput(response, NOW));
        }
        Snapshots.check(DialectRegistry.standard().read(response, NOW));
    }

    static ResponseView frame(String text) {
        int blank = text.indexOf("\n\n");
        String head = blank < 0 ? text : text.substring(0, blank);
        String body = blank < 0 ? null : text.substring(blank + 2);
        String[] lines = head.split("\n", -1);
        int status = 429;
        try {
            status = Integer.parseInt(lines[0].strip());
        } catch (NumberFormatException e) {
            // keep 429
        }
        status = Math.max(100, Math.min(599, status));
        List<String> fields = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                fields.add(lines[i].substring(0, colon));
                fields.add(lines[i].substring(colon + 1).strip());
            }
        }
        return new ResponseView(status, HttpFields.of(fields.toArray(String[]::new)), body);
    }
}
