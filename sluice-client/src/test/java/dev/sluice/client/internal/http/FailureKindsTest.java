package dev.sluice.client.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.core.Answer;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How far a failed JDK exchange got (R07a), and whether the JDK may have sent it twice (SPEC §4.7). */
class FailureKindsTest {

    @Test
    void aLostConnectionOfAGetOrHeadMayHaveBeenSentTwiceByTheJdk() {
        // JDK 21–25 MultiExchange re-sends GET and HEAD once when the connection closes before any
        // response byte; the failure then seen is the second one
        for (String method : new String[] {"GET", "HEAD"}) {
            Answer.Failure f = FailureKinds.of(new CompletionException(new IOException("Connection reset")), method);
            assertThat(f.kind()).isEqualTo(Answer.FailureKind.CONNECTION_LOST);
            assertThat(f.transportResends()).as(method).isEqualTo(1);
        }
        assertThat(FailureKinds.of(new EOFException("EOF reached while reading"), "GET").transportResends()).isEqualTo(1);
    }

    @Test
    void otherMethodsAndOtherFailuresAreSentOnce() {
        // the JDK does not re-send a POST (unless -Djdk.httpclient.enableAllMethodRetry, off here),
        // nor after a timeout; a connect failure sent nothing at all
        assertThat(FailureKinds.of(new IOException("Connection reset"), "POST").transportResends()).isZero();
        Answer.Failure timeout = FailureKinds.of(new HttpTimeoutException("request timed out"), "GET");
        assertThat(timeout.kind()).isEqualTo(Answer.FailureKind.TIMEOUT);
        assertThat(timeout.transportResends()).isZero();
        Answer.Failure refused = FailureKinds.of(new ConnectException("Connection refused"), "GET");
        assertThat(refused.kind()).isEqualTo(Answer.FailureKind.NOT_SENT);
        assertThat(refused.transportResends()).isZero();
        assertThat(FailureKinds.of(new HttpConnectTimeoutException("connect timed out"), "GET").kind())
                .isEqualTo(Answer.FailureKind.NOT_SENT);
        assertThat(FailureKinds.of(new IllegalStateException("a bug"), "GET")).isNull();
    }

    @Test
    void theJdksPropertiesWidenOrStopItsResendAsMultiExchangeReadsThem() {
        assertThat(FailureKinds.jdkMayResend("GET", null, null)).isTrue();
        assertThat(FailureKinds.jdkMayResend("POST", null, null)).isFalse();
        // -Djdk.httpclient.enableAllMethodRetry (empty or true): every method
        assertThat(FailureKinds.jdkMayResend("POST", "", null)).isTrue();
        assertThat(FailureKinds.jdkMayResend("POST", "true", null)).isTrue();
        assertThat(FailureKinds.jdkMayResend("POST", "false", null)).isFalse();
        // -Djdk.httpclient.redirects.retrylimit=1: one exchange per request, no re-send at all
        assertThat(FailureKinds.jdkMayResend("GET", null, "1")).isFalse();
        assertThat(FailureKinds.jdkMayResend("GET", "true", "1")).isFalse();
        assertThat(FailureKinds.jdkMayResend("GET", null, "2")).isTrue();
        assertThat(FailureKinds.jdkMayResend("GET", null, "many")).as("unparsable: the JDK's default 5").isTrue();
    }
}
