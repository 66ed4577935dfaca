package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.response;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

class ErrorCodeTableTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyStandardRowCitesAPublicHttpsPageAndNamesALimitKind() {
        assertThat(ErrorCodeTable.standard().rows()).hasSizeGreaterThanOrEqualTo(30);
        for (ErrorCodeTable.Row r : ErrorCodeTable.standard().rows()) {
            assertThat(r.source()).as(r.toString()).startsWith("https://");
            assertThat(r.kind()).isIn(Outcome.RATE_LIMITED, Outcome.QUOTA_EXHAUSTED);
        }
    }

    @Test
    void aParentQualifiedRowMatchesOnlyUnderThatParent() throws Exception {
        // https://developers.facebook.com/docs/graph-api/guides/error-handling/: Meta's code sits under "error"
        ErrorCodeTable t = ErrorCodeTable.standard();
        assertThat(t.lookup(JSON.readTree("{\"error\":{\"code\":4}}"), null)).map(ErrorCodeTable.Match::code).contains("meta:4");
        assertThat(t.lookup(JSON.readTree("{\"data\":{\"code\":4}}"), null)).isEmpty();
        assertThat(t.lookup(JSON.readTree("{\"error\":{\"code\":80015}}"), null)).isEmpty(); // past the 80001-80014 range
    }

    @Test
    void aQuotaMatchWinsOverARateMatchAnywhereInTheBody() throws Exception {
        String body = "{\"error\":{\"errors\":[{\"reason\":\"rateLimitExceeded\"},{\"reason\":\"dailyLimitExceeded\"}]}}";
        assertThat(ErrorCodeTable.standard().lookup(JSON.readTree(body), body).orElseThrow().kind())
                .isEqualTo(Outcome.QUOTA_EXHAUSTED);
    }

    @Test
    void usersExtendTheTableThroughTheRegistry() {
        var acme = ErrorCodeTable.standard().toBuilder()
                .code("acme", "error.code", "SLOW_DOWN", Outcome.RATE_LIMITED, "https://acme.example/errors")
                .phrase("acme", "monthly allowance used up", Outcome.QUOTA_EXHAUSTED, "https://acme.example/errors")
                .build();
        DialectRegistry registry = DialectRegistry.standard().toBuilder().errorCodes(acme).build();
        RateLimitSnapshot code = registry.read(response(400, "{\"error\":{\"code\":\"slow_down\"}}"), Responses.LOCAL_NOW);
        assertThat(code.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(code.attributes()).containsEntry("error_code", "acme:SLOW_DOWN");
        RateLimitSnapshot words = registry.read(response(403, "Your monthly allowance used up."), Responses.LOCAL_NOW);
        assertThat(words.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        // the standard registry does not know acme's code
        assertThat(DialectRegistry.standard().read(response(400, "{\"error\":{\"code\":\"slow_down\"}}"), Responses.LOCAL_NOW)
                .outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }

    @Test
    void aTableIsReadFromTsvWithTheLineOfEachError() {
        ErrorCodeTable t = ErrorCodeTable.parse("# comment\n\nacme\t$.code\t7\trate_limited\thttps://a.example\n");
        assertThat(t.rows()).hasSize(1);
        assertThatThrownBy(() -> ErrorCodeTable.parse("a\tb\tc\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 1").hasMessageContaining("5 tab-separated");
        assertThatThrownBy(() -> ErrorCodeTable.parse("\na\tb\tc\toverloaded\thttps://x\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2").hasMessageContaining("kind");
    }

    @Test
    void aHostileBodyCostsBoundedWork() throws Exception {
        // 10,000 nested arrays and 100,000 objects: the walk stops at its depth and object budget
        StringBuilder deep = new StringBuilder();
        deep.append("[".repeat(10_000)).append("{\"code\":88}").append("]".repeat(10_000));
        StringBuilder wide = new StringBuilder("{\"errors\":[");
        for (int i = 0; i < 100_000; i++) {
            wide.append(i == 0 ? "" : ",").append("{\"code\":1}");
        }
        wide.append(",{\"code\":88}]}");
        ErrorCodeTable t = ErrorCodeTable.standard();
        var mapper = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder()
                .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder().maxNestingDepth(20_000).build())
                .build());
        assertThat(t.lookup(mapper.readTree(deep.toString()), null)).isEmpty();
        assertThat(t.lookup(mapper.readTree(wide.toString()), null)).isEmpty(); // the 100,001st item is past the budget
    }
}
