package dev.sluice.wire.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RawHttpResponseTest {

    private static ResponseView parse(String text) {
        return RawHttpResponse.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsStatusFieldsAndBodyWithCrlf() {
        ResponseView r = parse("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 5\r\nrateLimit: \"burst\";r=0;t=5\r\n\r\n{\"x\":1}");
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.headers().first("retry-after")).contains("5");
        assertThat(r.headers().first("RateLimit")).contains("\"burst\";r=0;t=5");
        assertThat(r.body()).isEqualTo("{\"x\":1}");
    }

    @Test
    void acceptsBareLineFeedsHttp2AndAMissingReasonPhrase() {
        ResponseView r = parse("HTTP/2 503\nretry-after: 1\n\n");
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.body()).isNull();
    }

    @Test
    void keepsRepeatedFieldLinesInOrder() {
        ResponseView r = parse("HTTP/1.1 200 OK\nRateLimit: \"a\";r=1\nRateLimit: \"b\";r=2\n\n");
        assertThat(r.headers().all("ratelimit")).containsExactly("\"a\";r=1", "\"b\";r=2");
        assertThat(r.headers().combined("ratelimit")).contains("\"a\";r=1, \"b\";r=2");
    }

    @Test
    void joinsObsoleteLineFolding() {
        ResponseView r = parse("HTTP/1.1 200 OK\nX-Long: one\n  two\n\n"); // RFC 9112 §5.2
        assertThat(r.headers().first("x-long")).contains("one two");
    }

    @Test
    void dechunksAChunkedBody() {
        ResponseView r = parse("HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "7\r\n{\"retry\r\n9\r\n_after\":2\r\n1\r\n}\r\n0\r\n\r\n");
        assertThat(r.body()).isEqualTo("{\"retry_after\":2}");
    }

    @Test
    void refusesTextWithoutAStatusLineNamingTheLine() {
        assertThatThrownBy(() -> parse("Retry-After: 5\n\n"))
                .isInstanceOf(MalformedResponseException.class)
                .hasMessageStartingWith("line 1: expected a status line");
        assertThatThrownBy(() -> parse("HTTP/1.1 4299 Nope\n\n"))
                .isInstanceOf(MalformedResponseException.class)
                .hasMessageContaining("three digits");
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\nno colon here\n\n"))
                .isInstanceOf(MalformedResponseException.class)
                .hasMessageStartingWith("line 2:");
        assertThatThrownBy(() -> parse(""))
                .isInstanceOf(MalformedResponseException.class);
    }

    @Test
    void readsTheFinalResponseAfterInterimOnes() {
        // what `curl -i` prints for a POST with a large body (RFC 9110 §15.2: 1xx are interim)
        ResponseView r = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                + "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n\r\n");
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.headers().first("Retry-After")).contains("3");
        assertThat(r.headers().contains("Link")).isFalse();
    }

    @Test
    void toleratesAByteOrderMarkAndBareCarriageReturns() {
        ResponseView bom = parse("\uFEFFHTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n\r\n");
        assertThat(bom.status()).isEqualTo(429);
        ResponseView cr = parse("HTTP/1.1 429 Too Many Requests\rRetry-After: 3\rRateLimit: \"b\";r=0;t=3\r\r");
        assertThat(cr.headers().first("retry-after")).contains("3");
        assertThat(cr.headers().first("ratelimit")).contains("\"b\";r=0;t=3");
    }

    @Test
    void errorLineNumbersCountTheBlankLinesBeforeTheStatusLine() {
        assertThatThrownBy(() -> parse("\n\nnot a status line\n\n"))
                .isInstanceOf(MalformedResponseException.class)
                .hasMessageStartingWith("line 3: expected a status line");
        assertThatThrownBy(() -> parse("\n \n"))
                .isInstanceOf(MalformedResponseException.class)
                .hasMessageContaining("no status line");
    }
}
