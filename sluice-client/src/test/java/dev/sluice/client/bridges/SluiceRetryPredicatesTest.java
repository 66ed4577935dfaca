package dev.sluice.client.bridges;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.OverloadedException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.SluiceRetryPredicates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class SluiceRetryPredicatesTest {

    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    @Test
    void aSluiceExceptionAnywhereInTheCauseChainIsNotRetriedOutside() {
        RateLimitedException limited = new RateLimitedException("429", Duration.ofSeconds(2), 429, null, 3);

        assertThat(SluiceRetryPredicates.outerRetryAllowed(limited)).isFalse();
        assertThat(SluiceRetryPredicates.outerRetryAllowed(new CompletionException(new UncheckedIOException(limited))))
                .isFalse();
    }

    @Test
    void otherFailuresAreTheOuterLayersToDecide() {
        assertThat(SluiceRetryPredicates.outerRetryAllowed(new IOException("not through Sluice"))).isTrue();
        assertThat(SluiceRetryPredicates.outerRetryAllowed(new IllegalStateException())).isTrue();
        assertThat(SluiceRetryPredicates.outerRetryAllowed(null)).isTrue();
    }

    @Test
    void aCauseLoopEndsTheSearch() {
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);

        assertThat(SluiceRetryPredicates.outerRetryAllowed(a)).isTrue();
    }

    @Test
    void retryLaterAfterIsTheServersHintOrTheQuotaReset() {
        assertThat(SluiceRetryPredicates.retryLaterAfter(
                new RateLimitedException("429", Duration.ofSeconds(90), 429, null, 1), NOW)).contains(Duration.ofSeconds(90));
        assertThat(SluiceRetryPredicates.retryLaterAfter(
                new OverloadedException("503", Duration.ofSeconds(5), 503, null, 3), NOW)).contains(Duration.ofSeconds(5));
        assertThat(SluiceRetryPredicates.retryLaterAfter(new QuotaExceededException("quota", "daily",
                Instant.parse("2026-12-01T00:00:00Z"), 429, null, 1), NOW)).contains(Duration.ofHours(12));
        assertThat(SluiceRetryPredicates.retryLaterAfter(new IOException(), NOW)).isEmpty();
    }
}
