package dev.sluice.wire.sf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Behaviours of the API that the conformance suite does not reach. */
class StructuredFieldsTest {

    @Test
    void parseErrorsCarryTheInputAndTheOffsetWhereParsingStopped() {
        assertThatThrownBy(() -> StructuredFields.parseList("\"burst\";q=20;w=2 \"daily\""))
                .isInstanceOfSatisfying(StructuredFieldParseException.class, e -> {
                    assertThat(e.input()).isEqualTo("\"burst\";q=20;w=2 \"daily\"");
                    assertThat(e.offset()).isEqualTo(17);
                    assertThat(e.getMessage()).contains("expected ','").contains("offset 17");
                });
    }

    @Test
    void severalFieldLinesAreCombinedWithCommaSpace() {
        List<Member> joined = StructuredFields.parseList(List.of("\"a\";r=1", "\"b\";r=2"));

        assertThat(joined).isEqualTo(StructuredFields.parseList("\"a\";r=1, \"b\";r=2"));
        assertThat(StructuredFields.parseList(List.of())).isEmpty();
        assertThat(StructuredFields.parseDictionary(List.of("a=1", "b=2")).keyAt(1)).isEqualTo("b");
        assertThatThrownBy(() -> StructuredFields.parseItem(List.of("1", "2")))
                .isInstanceOf(StructuredFieldParseException.class);
    }

    @Test
    void itemsExposeTheirParametersInOrder() {
        Item item = StructuredFields.parseItem("\"burst\";q=20;w=2;flag");

        assertThat(item.bareItem()).isEqualTo(SfString.of("burst"));
        assertThat(item.parameter("q")).isEqualTo(SfInteger.of(20));
        assertThat(item.parameter("flag")).isEqualTo(SfBoolean.TRUE);
        assertThat(item.parameter("absent")).isNull();
        assertThat(item.parameters().keyAt(1)).isEqualTo("w");
        assertThat(item.parameters().asMap()).containsExactly(
                java.util.Map.entry("q", SfInteger.of(20)), java.util.Map.entry("w", SfInteger.of(2)),
                java.util.Map.entry("flag", SfBoolean.TRUE));
    }

    @Test
    void aRepeatedParameterKeepsItsFirstPlaceAndTakesTheLastValue() {
        Parameters p = Parameters.builder()
                .put("b", SfInteger.of(1)).put("c", SfInteger.of(2)).put("b", SfInteger.of(3)).build();

        assertThat(p.size()).isEqualTo(2);
        assertThat(p.keyAt(0)).isEqualTo("b");
        assertThat(p.get("b")).isEqualTo(SfInteger.of(3));
    }

    @Test
    void theModelRefusesValuesThatCannotBeSerialised() {
        assertThatThrownBy(() -> SfInteger.of(1_000_000_000_000_000L)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SfDate.of(Instant.ofEpochSecond(1_000_000_000_000_000L)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SfDecimal.of(new BigDecimal("1000000000000.0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SfString.of("tab\there")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SfToken.of("1abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SfDisplayString.of("\ud800")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Parameters.of("Upper", SfBoolean.TRUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Upper");
        assertThatThrownBy(() -> Dictionary.builder().put("a b", SfInteger.of(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void decimalsRoundHalfToEvenAtThreeDigits() {
        // RFC 9651 §4.1.5
        assertThat(SfDecimal.of(new BigDecimal("0.0025")).thousandths()).isEqualTo(2);
        assertThat(SfDecimal.of(new BigDecimal("0.0035")).thousandths()).isEqualTo(4);
        assertThat(SfDecimal.of(new BigDecimal("-1.2345")).thousandths()).isEqualTo(-1234);
        assertThat(StructuredFields.serialize(Item.of(SfDecimal.of(new BigDecimal("9.9995"))))).isEqualTo("10.0");
        assertThat(StructuredFields.serialize(Item.of(SfDecimal.ofThousandths(-50)))).isEqualTo("-0.05");
        assertThat(SfDecimal.ofThousandths(1500).toBigDecimal()).isEqualByComparingTo("1.5");
    }

    @Test
    void byteSequencesAreImmutableAndEqualByContent() {
        byte[] bytes = {1, 2, 3};
        SfByteSequence seq = SfByteSequence.of(bytes);
        bytes[0] = 9;
        seq.bytes()[1] = 9;

        assertThat(seq.bytes()).containsExactly(1, 2, 3);
        assertThat(seq).isEqualTo(SfByteSequence.of((byte) 1, (byte) 2, (byte) 3));
        assertThat(seq.toBase64()).isEqualTo("AQID");
        // non-zero pad bits are accepted and compare by the bytes they decode to (RFC 9651 §4.2.7)
        assertThat(StructuredFields.parseItem(":iZ==:")).isEqualTo(StructuredFields.parseItem(":iQ==:"));
    }

    @Test
    void displayStringsCarryAnyUnicodeAsLowerCasePercentEncodedUtf8() {
        Item item = Item.of(SfDisplayString.of("füü \"%\" 😀"));

        String text = StructuredFields.serialize(item);

        assertThat(text).isEqualTo("%\"f%c3%bc%c3%bc %22%25%22 %f0%9f%98%80\"");
        assertThat(StructuredFields.parseItem(text)).isEqualTo(item);
    }

    @Test
    void encodedSurrogatesAndOverlongFormsAreNotUtf8() {
        for (String bad : List.of("%\"%ed%a0%80\"", "%\"%c0%af\"", "%\"%f4%90%80%80\"")) {
            assertThatThrownBy(() -> StructuredFields.parseItem(bad))
                    .as(bad)
                    .isInstanceOf(StructuredFieldParseException.class);
        }
    }

    @Test
    void datesConvertToInstants() {
        Item item = StructuredFields.parseItem("@1659578233");

        assertThat(((SfDate) item.bareItem()).toInstant()).isEqualTo(Instant.parse("2022-08-04T01:57:13Z"));
        assertThat(StructuredFields.serialize(Item.of(SfDate.of(Instant.parse("2022-08-04T01:57:13.9Z")))))
                .isEqualTo("@1659578233");
    }

    @Test
    void dictionaryMembersWithTrueValuesSerialiseAsBareKeys() {
        Dictionary d = Dictionary.builder()
                .put("a", Item.of(SfBoolean.TRUE, Parameters.of("x", SfInteger.of(1))))
                .put("b", SfBoolean.FALSE)
                .put("c", InnerList.of(List.of(Item.of(SfToken.of("t")), Item.of(SfInteger.of(2)))))
                .build();

        assertThat(StructuredFields.serialize(d)).isEqualTo("a;x=1, b=?0, c=(t 2)");
        assertThat(StructuredFields.serialize(Dictionary.EMPTY)).isEmpty();
    }

    @Test
    void lowLevelAppendersValidateBeforeWriting() {
        StringBuilder sb = new StringBuilder("x");

        assertThatThrownBy(() -> StructuredFields.appendString(sb, "naïve")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StructuredFields.appendInteger(sb, -1_000_000_000_000_000L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(sb).hasToString("x");
        assertThat(StructuredFields.appendString(sb, "a\"b")).hasToString("x\"a\\\"b\"");
    }
}
