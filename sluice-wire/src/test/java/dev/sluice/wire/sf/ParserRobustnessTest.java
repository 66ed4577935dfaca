package dev.sluice.wire.sf;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * On any text, including the RFC 9651-only syntax the differential test cannot cover (Dates,
 * Display Strings, percent escapes, non-ASCII), a parser either returns a value or throws its one
 * documented exception; a value it returns serialises and parses back to itself.
 */
class ParserRobustnessTest {

    private static final char[] ALPHABET =
            " \t,;=()\"\\:?*-._/%@01239abfqAZé\u0000\u007f\ud83d\ude00".toCharArray();

    @Property(tries = 5000, seed = "-5589201134672210934")
    void parsersThrowOnlyTheirDocumentedExceptionAndRoundTrip(@ForAll("text") String text) {
        try {
            Item item = StructuredFields.parseItem(text);
            org.assertj.core.api.Assertions.assertThat(StructuredFields.parseItem(StructuredFields.serialize(item)))
                    .isEqualTo(item);
        } catch (StructuredFieldParseException expected) {
            // the documented outcome for invalid text
        }
        try {
            var list = StructuredFields.parseList(text);
            org.assertj.core.api.Assertions.assertThat(StructuredFields.parseList(StructuredFields.serialize(list)))
                    .isEqualTo(list);
        } catch (StructuredFieldParseException expected) {
            // the documented outcome for invalid text
        }
        try {
            Dictionary dict = StructuredFields.parseDictionary(text);
            org.assertj.core.api.Assertions.assertThat(
                    StructuredFields.parseDictionary(StructuredFields.serialize(dict))).isEqualTo(dict);
        } catch (StructuredFieldParseException expected) {
            // the documented outcome for invalid text
        }
    }

    @Provide
    Arbitrary<String> text() {
        Arbitrary<String> prefixes = Arbitraries.of("", "@", "%\"", "a=", ":", "(", "\"", "?", "-", "1.");
        Arbitrary<String> hex = Arbitraries.of("%c3%bc", "%e2%82%ac", "%f0%9f%98%80", "%ed%a0%80", "%ff", "%C3", "%2");
        Arbitrary<String> body = Arbitraries.strings().withChars(ALPHABET).ofMaxLength(24);
        return net.jqwik.api.Combinators.combine(prefixes, body, hex, body, Arbitraries.of("", "\"", ")", ":"))
                .as((a, b, c, d, e) -> a + b + c + d + e);
    }
}
