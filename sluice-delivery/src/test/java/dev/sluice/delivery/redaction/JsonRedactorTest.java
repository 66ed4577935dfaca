package dev.sluice.delivery.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonRedactorTest {

    @Test
    void blanksTheSelectedFieldsAndKeepsTheRest() {
        JsonRedactor r = JsonRedactor.of(List.of("$.player.email", "$.player.name"));

        assertThat(r.redact("{\"player\":{\"id\":8472,\"email\":\"p@example.com\",\"name\":\"Ana\"},\"item\":991}"))
                .contains("{\"player\":{\"id\":8472,\"email\":\"[redacted]\",\"name\":\"[redacted]\"},\"item\":991}");
    }

    @Test
    void wildcardsReachEveryElementAndMember() {
        JsonRedactor r = JsonRedactor.of(List.of("$.items[*].card", "$.contacts.*"));

        assertThat(r.redact("{\"items\":[{\"card\":\"4111\",\"sku\":1},{\"card\":\"5500\",\"sku\":2}],"
                + "\"contacts\":{\"home\":\"+1\",\"work\":\"+2\"}}"))
                .contains("{\"items\":[{\"card\":\"[redacted]\",\"sku\":1},{\"card\":\"[redacted]\",\"sku\":2}],"
                        + "\"contacts\":{\"home\":\"[redacted]\",\"work\":\"[redacted]\"}}");
    }

    @Test
    void anIndexSelectsOneElementAndAWholeObjectCanBeBlanked() {
        JsonRedactor r = JsonRedactor.of(List.of("$.a[1]", "$.b"));

        assertThat(r.redact("{\"a\":[1,2,3],\"b\":{\"x\":1}}")).contains("{\"a\":[1,\"[redacted]\",3],\"b\":\"[redacted]\"}");
    }

    @Test
    void aPathThatSelectsNothingChangesNothing() {
        assertThat(JsonRedactor.of(List.of("$.missing.deep")).redact("{\"a\":1}")).contains("{\"a\":1}");
    }

    @Test
    void aPayloadThatIsNotJsonKeepsNoCopy() {
        assertThat(JsonRedactor.of(List.of("$.a")).redact("name=Ana&email=a@example.com")).isEmpty();
    }

    @Test
    void aMalformedPathIsRejectedWithItsOffset() {
        assertThatThrownBy(() -> JsonRedactor.of(List.of("player.email")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must start with '$'");
        assertThatThrownBy(() -> JsonRedactor.of(List.of("$.a[x]")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[x]");
        assertThatThrownBy(() -> JsonRedactor.of(List.of("$.a..b")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset 3");
    }
}
