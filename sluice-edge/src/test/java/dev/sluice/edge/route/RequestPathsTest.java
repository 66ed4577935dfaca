package dev.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 3986 §6.2.2 normalisation of the routed path, and the targets refused as ambiguous (SPEC §3.1). */
class RequestPathsTest {

    @ParameterizedTest
    @CsvSource({
            "/v1/labels:batch, /v1/labels:batch",
            "/v1//labels:batch, /v1/labels:batch",
            "/v1/labels%3Abatch, /v1/labels:batch",
            "/v1/labels%3abatch, /v1/labels:batch",
            "/v1/x/../labels:batch, /v1/labels:batch",
            "/v1/./labels, /v1/labels",
            "/v1/%2E%2E/v2, /v2",
            "/../../etc, /etc",
            "/v1/labels/, /v1/labels/",
            "/v1/labels/., /v1/labels/",
            "/v1/labels/.., /v1/",
            "/, /",
            "//, /",
            "/v1/%7euser, /v1/~user",
            "/v1/a%20b, /v1/a%20b",
            "/v1/a%3bb, /v1/a%3Bb",
            "/v1/%40me, /v1/@me",
            "/v1/..., /v1/...",
            "*, *"
    })
    void normalisesAsRfc3986Section622Says(String raw, String normal) {
        assertThat(RequestPaths.normalize(raw)).isEqualTo(new RequestPaths.Normal(normal));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/a%00", "/v1/a%1f", "/v1/a%7F", "/v1/a\u0000b", "/v1/a\tb", "/v1/a%2Fb", "/v1/a%5cb",
            "/v1\\a", "/v1/a%", "/v1/a%4", "/v1/a%g0"})
    void refusesControlBytesEncodedSlashesAndBrokenEscapes(String raw) {
        assertThat(RequestPaths.normalize(raw)).isInstanceOf(RequestPaths.Refused.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/labels", "/v1/labels:batch", "/v1/labels/123", "/"})
    void aNormalPathIsReturnedAsTheSameString(String raw) {
        assertThat(((RequestPaths.Normal) RequestPaths.normalize(raw)).path()).isSameAs(raw);
    }
}
