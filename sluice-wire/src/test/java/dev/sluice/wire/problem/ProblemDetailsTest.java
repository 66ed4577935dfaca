package dev.sluice.wire.problem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProblemDetailsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** SPEC §3.4: the Free key's daily denial at 18:40 UTC, 5 h 20 min before 00:00 UTC. */
    private static final ProblemDetails DAILY_AT_1840 = ProblemDetails.builder()
            .type("https://api.example.com/errors/quota_exhausted")
            .title("Daily quota exhausted")
            .status(429)
            .detail("10000 of 10000 requests used today; resets at 00:00 UTC")
            .limit("daily")
            .retryAfterSeconds(19_200) // SPEC §3.4: 5 h 20 min
            .violatedPolicies(List.of("daily"))
            .build();

    @Test
    void writesTheSpecDailyDenialWithItsExtensions() throws Exception {
        JsonNode written = JSON.readTree(DAILY_AT_1840.toJson());
        assertThat(written.get("type").asText()).isEqualTo("https://api.example.com/errors/quota_exhausted");
        assertThat(written.get("status").asInt()).isEqualTo(429);
        assertThat(written.get("limit").asText()).isEqualTo("daily");
        assertThat(written.get("retry_after_s").asLong()).isEqualTo(19_200L);
        assertThat(written.get("violated-policies").get(0).asText()).isEqualTo("daily");
    }

    @Test
    void writesStandardMembersFirstThenExtensionsInOrder() {
        assertThat(DAILY_AT_1840.toJson()).isEqualTo("{\"type\":\"https://api.example.com/errors/quota_exhausted\","
                + "\"title\":\"Daily quota exhausted\",\"status\":429,"
                + "\"detail\":\"10000 of 10000 requests used today; resets at 00:00 UTC\","
                + "\"limit\":\"daily\",\"retry_after_s\":19200,\"violated-policies\":[\"daily\"]}");
    }

    @Test
    void readsBackWhatItWrites() {
        ProblemDetails read = ProblemDetails.parse(DAILY_AT_1840.toJson()).orElseThrow();
        assertThat(read).isEqualTo(DAILY_AT_1840);
        assertThat(read.limit()).isEqualTo("daily");
        assertThat(read.retryAfterSeconds()).isEqualTo(19_200L);
        assertThat(read.violatedPolicies()).containsExactly("daily");
        assertThat(read.typeCode()).isEqualTo("quota_exhausted");
    }

    @Test
    void rfc9457ExampleKeepsItsExtensionMembers() {
        String body = "{\n \"type\": \"https://example.com/probs/out-of-credit\",\n"
                + " \"title\": \"You do not have enough credit.\",\n"
                + " \"detail\": \"Your current balance is 30, but that costs 50.\",\n"
                + " \"instance\": \"/account/12345/msgs/abc\",\n \"balance\": 30,\n"
                + " \"accounts\": [\"/account/12345\",\n \"/account/67890\"]\n}\n";
        ProblemDetails p = ProblemDetails.parse(body).orElseThrow();
        assertThat(p.instance()).isEqualTo("/account/12345/msgs/abc");
        assertThat(p.status()).isNull();
        assertThat(p.extensions()).containsExactly(
                Map.entry("balance", 30L), Map.entry("accounts", List.of("/account/12345", "/account/67890")));
        assertThat(p.typeCode()).isEqualTo("out-of-credit");
    }

    @Test
    void aStandardMemberOfTheWrongTypeIsIgnored() {
        // RFC 9457 §3.1: "If a member's value type does not match the specified type, the member MUST be ignored"
        ProblemDetails p = ProblemDetails.parse("{\"type\":7,\"status\":\"429\",\"title\":[\"x\"],\"detail\":\"d\"}").orElseThrow();
        assertThat(p.type()).isNull();
        assertThat(p.effectiveType()).isEqualTo("about:blank");
        assertThat(p.status()).isNull();
        assertThat(p.title()).isNull();
        assertThat(p.detail()).isEqualTo("d");
        assertThat(p.extensions()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "not json", "[1,2]", "42", "\"text\"", "null",
        "{\n\"type\": \"https://iana.org/assignments/http-problem-types#quota-exceeded\"\n\"title\": \"x\"}",
        "{\"unterminated\": "})
    void somethingThatIsNotAJsonObjectIsNoProblemAndNoException(String body) {
        assertThat(ProblemDetails.parse(body)).isEmpty();
        assertThat(ProblemDetails.parse(null)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "https://api.example.com/errors/rate_limited, rate_limited",
        "https://iana.org/assignments/http-problem-types#quota-exceeded, quota-exceeded",
        "https://api.example.com/errors/Quota_Exhausted/, quota_exhausted",
        "about:blank, about:blank",
        "urn:example:overloaded, urn:example:overloaded",
    })
    void typeCodeIsTheLastSegment(String type, String code) {
        assertThat(ProblemDetails.builder().type(type).build().typeCode()).isEqualTo(code);
    }

    @Test
    void retryAfterSecondsIsReadLeniently() {
        assertThat(ProblemDetails.parse("{\"retry_after_s\": 2.5}").orElseThrow().retryAfterSeconds()).isEqualTo(3L);
        assertThat(ProblemDetails.parse("{\"retry_after_s\": -1}").orElseThrow().retryAfterSeconds()).isNull();
        assertThat(ProblemDetails.parse("{\"retry_after_s\": \"5\"}").orElseThrow().retryAfterSeconds()).isNull();
        assertThat(ProblemDetails.parse("{\"retry_after_s\": 1e400}").orElseThrow().retryAfterSeconds()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void extensionsCannotShadowStandardMembers() {
        assertThatThrownBy(() -> ProblemDetails.builder().extension("status", 429))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("status");
        assertThatThrownBy(() -> new ProblemDetails(null, null, null, null, null, Map.of("type", "x")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mediaTypeIgnoresCaseAndParameters() {
        assertThat(ProblemDetails.isProblemMediaType("application/problem+json")).isTrue();
        assertThat(ProblemDetails.isProblemMediaType("Application/Problem+JSON; charset=utf-8")).isTrue();
        assertThat(ProblemDetails.isProblemMediaType("application/json")).isFalse();
        assertThat(ProblemDetails.isProblemMediaType(null)).isFalse();
    }

    @Test
    void writesEveryExtensionValueShape() throws Exception {
        ProblemDetails p = ProblemDetails.builder()
                .extension("n", null).extension("b", true).extension("i", 3).extension("d", 1.5)
                .extension("big", new BigDecimal("12345678901234567890.5")).extension("nan", Double.NaN)
                .extension("map", Map.of("k", List.of(1L, "x"))).extension("other", new StringBuilder("sb"))
                .build();
        JsonNode n = JSON.readTree(p.toJson());
        assertThat(n.get("n").isNull()).isTrue();
        assertThat(n.get("b").booleanValue()).isTrue();
        assertThat(n.get("i").intValue()).isEqualTo(3);
        assertThat(n.get("d").doubleValue()).isEqualTo(1.5);
        assertThat(p.toJson()).contains("\"big\":12345678901234567890.5");
        assertThat(n.get("nan").isNull()).isTrue();
        assertThat(n.get("map").get("k").get(1).asText()).isEqualTo("x");
        assertThat(n.get("other").asText()).isEqualTo("sb");
    }

    @Test
    void escapesQuotesControlCharactersAndLoneSurrogates() throws Exception {
        String nasty = "say \"hi\"\\ \n\t\u0000\u001f </script> \u2028 \ud83d\ude00 lone:\ud800 end";
        ProblemDetails p = ProblemDetails.builder().title(nasty).extension(nasty, nasty).build();
        JsonNode n = JSON.readTree(p.toJsonBytes());
        String cleaned = nasty.replace("\ud800", "\ufffd");
        assertThat(n.get("title").asText()).isEqualTo(cleaned);
        assertThat(n.get(cleaned).asText()).isEqualTo(cleaned);
    }

    /** The edge writes these on every rejection: any string content must give valid JSON. */
    @Property(tries = 500, seed = "4711")
    void anyStringsWriteValidJsonThatReadsBack(@ForAll String title, @ForAll String detail, @ForAll String limit) throws Exception {
        ProblemDetails p = ProblemDetails.builder().type("https://x/errors/rate_limited").title(title).status(429)
                .detail(detail).limit(limit).retryAfterSeconds(1).build();
        JsonNode n = JSON.readTree(p.toJsonBytes());
        assertThat(n.get("title").asText()).isEqualTo(ProblemDetails.clean(title));
        assertThat(n.get("detail").asText()).isEqualTo(ProblemDetails.clean(detail));
        assertThat(ProblemDetails.parse(p.toJson()).orElseThrow().limit()).isEqualTo(ProblemDetails.clean(limit));
    }
}
