package dev.sluice.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.delivery.StoreException;
import dev.sluice.delivery.support.CapturingLogger;
import dev.sluice.time.ManualTimeSource;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {

    final ManualTimeSource time = ManualTimeSource.at("2026-12-01T00:00:00Z");
    final CapturingLogger logger = new CapturingLogger();
    final RateLimitedLog log = new RateLimitedLog(logger, Duration.ofSeconds(30), time::nanoTime);

    @Test
    void theFirstFailureIsAWarnWithItsThrowableAndTheNextOnesWithinTheIntervalAreCounted() {
        StoreException down = new StoreException("claim failed: Connection refused", null);

        assertThat(log.warn("store down", down)).isTrue();
        for (int i = 0; i < 29; i++) {
            time.advance(Duration.ofSeconds(1));
            assertThat(log.warn("store down", down)).isFalse();
        }
        time.advance(Duration.ofSeconds(1));
        assertThat(log.warn("store down", down)).isTrue();

        assertThat(logger.lines()).extracting(CapturingLogger.Line::message)
                .containsExactly("store down", "store down (29 more like it since the last line)");
        assertThat(logger.lines()).allSatisfy(l -> {
            assertThat(l.level()).isEqualTo(Level.WARNING);
            assertThat(l.thrown()).isSameAs(down); // the logger prints its stack trace
        });
    }
}
