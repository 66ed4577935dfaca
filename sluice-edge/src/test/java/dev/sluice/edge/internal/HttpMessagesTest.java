package dev.sluice.edge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.response.Header;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpMessagesTest {

    @Test
    void sharedCacheDirectivesAreRemovedFromResponsesWithPerKeyFields() {
        // R19: a response carrying a key's RateLimit fields must not be stored by a shared cache
        assertThat(HttpMessages.privateCacheControl("public, max-age=60")).isEqualTo("private, max-age=60");
        assertThat(HttpMessages.privateCacheControl("max-age=60, s-maxage=600")).isEqualTo("private, max-age=60");
        assertThat(HttpMessages.privateCacheControl("no-store, public")).isEqualTo("no-store");
        assertThat(HttpMessages.privateCacheControl("private, max-age=5")).isNull();
        assertThat(HttpMessages.privateCacheControl(null)).isNull();
    }

    @Test
    void theUpstreamRequestDropsHopByHopFieldsAndNamesTheClient() {
        HttpRequest in = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "http://edge.example/v1/labels?x=1");
        in.headers().add("Host", "edge.example").add("Connection", "keep-alive, X-Secret").add("X-Secret", "1")
                .add("Keep-Alive", "timeout=5").add("Upgrade", "h2c").add("HTTP2-Settings", "AAA")
                .add("Expect", "100-continue").add("x-http2-stream-id", "3").add("X-Forwarded-For", "203.0.113.9")
                .add("Authorization", "Bearer sk");
        HttpRequest out = HttpMessages.upstreamRequest(in, true, "127.0.0.1:8081", "192.0.2.7", true);
        assertThat(out.uri()).isEqualTo("/v1/labels?x=1");
        assertThat(out.headers().get("Host")).isEqualTo("127.0.0.1:8081");
        assertThat(out.headers().get("X-Forwarded-Host")).isEqualTo("edge.example");
        assertThat(out.headers().get("X-Forwarded-For")).isEqualTo("203.0.113.9, 192.0.2.7");
        assertThat(out.headers().get("Transfer-Encoding")).isEqualTo("chunked");
        assertThat(out.headers().get("Authorization")).isEqualTo("Bearer sk");
        for (String gone : List.of("Connection", "X-Secret", "Keep-Alive", "Upgrade", "HTTP2-Settings", "Expect",
                "x-http2-stream-id")) {
            assertThat(out.headers().contains(gone)).as(gone).isFalse();
        }
    }

    @Test
    void theClientResponseGetsNoStoreOn429And503() {
        HttpResponse up = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.TOO_MANY_REQUESTS);
        up.headers().add("Cache-Control", "public, max-age=600").add("Content-Length", "0");
        HttpResponse out = HttpMessages.clientResponse(up, List.of(new Header("RateLimit", "\"b\";r=0;t=1")), true, false,
                "Mon, 30 Nov 2026 18:40:00 GMT");
        assertThat(out.headers().getAll("Cache-Control")).containsExactly("no-store");
        assertThat(out.headers().get("RateLimit")).isEqualTo("\"b\";r=0;t=1");
    }

    @Test
    void requestPathsLoseQueryAndAbsoluteForm() {
        assertThat(HttpMessages.path("/v1/labels?x=1#f")).isEqualTo("/v1/labels");
        assertThat(HttpMessages.path("http://h:1/v1/usage?a")).isEqualTo("/v1/usage");
        assertThat(HttpMessages.path("http://h:1")).isEqualTo("/");
        assertThat(HttpMessages.path("*")).isEqualTo("*");
    }
}
