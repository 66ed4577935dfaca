package dev.sluice.wire.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.wire.sf.StructuredFieldParseException;
import dev.sluice.wire.sf.StructuredFields;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the RFC 9651 parser: any field text parses as a List, a Dictionary and an Item or throws
 * {@link StructuredFieldParseException} (its documented exception), and whatever parses serialises
 * to text that parses again. Seeds: every input of {@code testdata/structured-field-tests}
 * ({@code bin/fuzz-seeds}). Run longer with {@code bin/fuzz} (see {@code bench/README.md}).
 */
@Tag("slow")
public class StructuredFieldsFuzzTest {

    /** The entry point of the standalone Jazzer driver, for longer runs ({@code bin/fuzz}). */
    public static void fuzzerTestOneInput(byte[] input) {
        new StructuredFieldsFuzzTest().parsesOrThrowsOnlyItsParseException(input);
    }

    @FuzzTest(maxDuration = "5s")
    void parsesOrThrowsOnlyItsParseException(byte[] input) {
        String field = new String(input, StandardCharsets.ISO_8859_1);
        try {
            StructuredFields.parseItem(StructuredFields.serialize(StructuredFields.parseItem(field)));
        } catch (StructuredFieldParseException expected) {
            // documented
        }
        try {
            StructuredFields.parseList(StructuredFields.serialize(StructuredFields.parseList(field)));
        } catch (StructuredFieldParseException expected) {
            // documented
        }
        try {
            StructuredFields.parseDictionary(StructuredFields.serialize(StructuredFields.parseDictionary(field)));
        } catch (StructuredFieldParseException expected) {
            // documented
        }
    }
}
