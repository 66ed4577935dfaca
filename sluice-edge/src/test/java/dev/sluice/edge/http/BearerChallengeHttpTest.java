package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The 401's {@code WWW-Authenticate} challenge follows RFC 6750 §3.1: no error code when the request carried
 * no bearer credential, {@code invalid_request} for a malformed one, {@code invalid_token} only for a
 * well-formed token that is not a known key.
 */
class BearerChallengeHttpTest extends ShiplaneEdgeHttpTest {

    private RawHttp.Response get(String authorizationLine) {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\n" + authorizationLine + "\r\n");
            return c.read();
        }
    }

    @Test
    void aRequestWithoutCredentialsGetsAChallengeWithoutAnErrorCode() {
        RawHttp.Response r = get("");

        assertThat(r.status()).isEqualTo(401);
        // RFC 6750 §3.1: the request lacked authentication information, so no error code
        assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"api\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Basic c2s6", "Token sk_test_free_1", "Digest username=\"a\""})
    void anotherSchemeCountsAsNoBearerCredential(String authorization) {
        RawHttp.Response r = get("Authorization: " + authorization + "\r\n");

        assertThat(r.status()).isEqualTo(401);
        assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"api\"");
    }

    @Test
    void aMalformedBearerCredentialIsInvalidRequest() {
        RawHttp.Response r = get("Authorization: Bearer two tokens\r\n");

        assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"api\", error=\"invalid_request\"");
    }

    @Test
    void anUnknownWellFormedTokenIsInvalidToken() {
        RawHttp.Response r = get("Authorization: Bearer sk_live_unknown\r\n");

        assertThat(r.status()).isEqualTo(401);
        assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"api\", error=\"invalid_token\"");
        assertThat(upstream.requests()).isZero();
    }
}
