package dev.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PathPatternTest {

    @Test
    void literalSegmentsMatchExactlyIncludingACustomMethodSuffix() {
        PathPattern labels = PathPattern.compile("/v1/labels");
        PathPattern batch = PathPattern.compile("/v1/labels:batch");
        assertThat(labels.matches("/v1/labels")).isTrue();
        assertThat(labels.matches("/v1/labels/")).isTrue();
        assertThat(labels.matches("/v1/labels:batch")).isFalse();
        assertThat(labels.matches("/v1/labels/x")).isFalse();
        assertThat(labels.matches("/v1/Labels")).isFalse();
        assertThat(labels.matches("/v1/label%73")).isFalse();
        assertThat(batch.matches("/v1/labels:batch")).isTrue();
        assertThat(batch.matches("/v1/labels")).isFalse();
    }

    @Test
    void wildcardsMatchOneSegmentOrTheRest() {
        PathPattern one = PathPattern.compile("/v1/labels/{id}/pdf");
        assertThat(one.matches("/v1/labels/lbl_1/pdf")).isTrue();
        assertThat(one.matches("/v1/labels//pdf")).isFalse();
        assertThat(one.matches("/v1/labels/a/b/pdf")).isFalse();
        PathPattern rest = PathPattern.compile("/v1/**");
        assertThat(rest.matches("/v1")).isTrue();
        assertThat(rest.matches("/v1/a/b/c")).isTrue();
        assertThat(rest.matches("/v2/a")).isFalse();
        assertThat(PathPattern.compile("/**").matches("/")).isTrue();
        assertThat(PathPattern.compile("/").matches("/")).isTrue();
        assertThat(PathPattern.compile("/").matches("/x")).isFalse();
    }

    @Test
    void badPatternsAreRefused() {
        for (String bad : List.of("v1/labels", "/v1//labels", "/v1/**/x", "/v1/la*", "/v1/x?y=1", "/v 1")) {
            assertThatThrownBy(() -> PathPattern.compile(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theFirstMatchingRouteWinsAndTheFallbackCatchesTheRest() {
        RouteTable t = new RouteTable(List.of(Route.of("POST", "/v1/labels"), Route.of("*", "/v1/labels"),
                Route.of("GET", "/v1/**").withCost(0)));
        assertThat(t.match("POST", "/v1/labels").method()).isEqualTo("POST");
        assertThat(t.match("DELETE", "/v1/labels").method()).isEqualTo("*");
        assertThat(t.match("GET", "/v1/quotes").cost()).isZero();
        assertThat(t.match("GET", "/health")).isSameAs(RouteTable.FALLBACK);
        assertThat(RouteTable.FALLBACK.id()).isEqualTo("* /**");
    }
}
