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

    @Test
    void aPayloadCutShortKeepsNoCopyEvenInsideARedactedValue() {
        JsonRedactor r = JsonRedactor.of(List.of("$.b"));
        assertThat(r.redact("{\"a\":1,\"b\":{\"x\":[1,2")).isEmpty();
        assertThat(r.redact("{\"a\":1,")).isEmpty();
        assertThat(r.redact("")).isEmpty();
    }

    @Test
    void theRootPathBlanksTheWholePayloadAndTextSurvivesTheCopy() {
        assertThat(JsonRedactor.of(List.of("$")).redact("{\"a\":1}")).contains("\"[redacted]\"");
        assertThat(JsonRedactor.of(List.of()).redact("{ \"name\" : \"Zoë \\\"Z\\\" \\u00e9\", \"n\": [1.5, -2, true, null] }"))
                .contains("{\"name\":\"Zoë \\\"Z\\\" é\",\"n\":[1.5,-2,true,null]}");
    }

    @Test
    void aTwentyMegabytePayloadIsRedactedInOnePass() {
        StringBuilder b = new StringBuilder("{\"player\":{\"email\":\"a@example.com\"},\"items\":[");
        int n = 0;
        while (b.length() < 20_000_000) {
            b.append(n == 0 ? "" : ",").append("{\"sku\":").append(n).append(",\"card\":\"4111-1111-1111-1111\"}");
            n++;
        }
        String json = b.append("]}").toString();
        JsonRedactor r = JsonRedactor.of(List.of("$.player.email", "$.items[*].card"));

        // a tree of this payload took ~300 MB of heap and 11-13 s on the 2-core build machine; one
        // streaming pass takes a fraction of a second
        String out = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> r.redact(json).orElseThrow());

        assertThat(out.substring(0, 100)).startsWith("{\"player\":{\"email\":\"[redacted]\"},\"items\":[{\"sku\":0,\"card\":\"[redacted]\"},");
        assertThat(out.contains("4111-1111")).as("a card number left").isFalse();
        assertThat(out.endsWith("{\"sku\":" + (n - 1) + ",\"card\":\"[redacted]\"}]}")).isTrue();
        assertThat(out.length()).isEqualTo(json.length() + n * ("[redacted]".length() - "4111-1111-1111-1111".length())
                + "[redacted]".length() - "a@example.com".length());
    }
}
