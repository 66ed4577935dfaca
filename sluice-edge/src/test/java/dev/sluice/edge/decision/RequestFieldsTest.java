package dev.sluice.edge.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The two request fields the decision reads: {@code Authorization: Bearer} and {@code Content-Length}. */
class RequestFieldsTest {

    @Test
    void aBearerTokenIsReadWhateverTheSchemesCase() {
        assertThat(BearerCredential.parse(List.of("Bearer sk_test_free_1")))
                .isEqualTo(new BearerCredential.Token("sk_test_free_1"));
        assertThat(BearerCredential.parse(List.of("bearer   abc.DEF-_~+/=="))).isEqualTo(new BearerCredential.Token(
                "abc.DEF-_~+/=="));
        assertThat(BearerCredential.parse(List.of())).isInstanceOf(BearerCredential.Missing.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Bearer", "Bearer ", "Bearerx abc", "Basic abc", "Bearer a b", "Bearer =abc",
            "Bearer a=b", "Bearer caf\u00e9", "Bearer a\u0000b"})
    void anythingElseIsMalformed(String value) {
        assertThat(BearerCredential.parse(List.of(value))).isInstanceOf(BearerCredential.Malformed.class);
    }

    @Test
    void twoFieldsOrAnAbsurdlyLongTokenAreMalformed() {
        assertThat(BearerCredential.parse(List.of("Bearer a", "Bearer b"))).isInstanceOf(BearerCredential.Malformed.class);
        assertThat(BearerCredential.parse(List.of("Bearer " + "a".repeat(257))))
                .isInstanceOf(BearerCredential.Malformed.class);
    }

    @Property(tries = 500, seed = "20261130")
    void theCredentialReaderNeverThrows(@ForAll String value) {
        assertThat(BearerCredential.parse(List.of(value))).isNotNull();
    }

    @Test
    void contentLengthAcceptsOneValueOrARepeatOfIt() {
        assertThat(ContentLength.parse(List.of())).isInstanceOf(ContentLength.Absent.class);
        assertThat(ContentLength.parse(List.of("10485760"))).isEqualTo(new ContentLength.Length(10_485_760));
        assertThat(ContentLength.parse(List.of("42, 42", " 42 "))).isEqualTo(new ContentLength.Length(42));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "1e3", "0x10", "99999999999999999999", "9223372036854775808", "10, 20", ",",
            "", "4 2", "+5"})
    void absurdContentLengthsAreInvalid(String value) {
        assertThat(ContentLength.parse(List.of(value))).isInstanceOf(ContentLength.Invalid.class);
    }

    @Property(tries = 500, seed = "20261130")
    void theContentLengthReaderNeverThrows(@ForAll String value) {
        assertThat(ContentLength.parse(List.of(value))).isNotNull();
    }
}
