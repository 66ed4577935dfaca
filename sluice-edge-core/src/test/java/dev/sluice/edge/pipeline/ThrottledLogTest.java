package dev.sluice.edge.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

class ThrottledLogTest {

    /** One line as SLF4J hands it to a back-end: the formatted text and the throwable, if any. */
    record Line(String text, Throwable stack) {
    }

    /** An SLF4J logger that keeps its WARN lines (AbstractLogger separates a trailing throwable). */
    static final class Recording extends AbstractLogger {
        final List<Line> lines = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern,
                Object[] arguments, Throwable throwable) {
            lines.add(new Line(MessageFormatter.basicArrayFormat(messagePattern, arguments), throwable));
        }

        @Override public boolean isTraceEnabled() { return false; }
        @Override public boolean isTraceEnabled(Marker marker) { return false; }
        @Override public boolean isDebugEnabled() { return false; }
        @Override public boolean isDebugEnabled(Marker marker) { return false; }
        @Override public boolean isInfoEnabled() { return true; }
        @Override public boolean isInfoEnabled(Marker marker) { return true; }
        @Override public boolean isWarnEnabled() { return true; }
        @Override public boolean isWarnEnabled(Marker marker) { return true; }
        @Override public boolean isErrorEnabled() { return true; }
        @Override public boolean isErrorEnabled(Marker marker) { return true; }
    }

    private final ManualTimeSource time = ManualTimeSource.at("2026-01-01T00:00:00Z");
    private final Recording recording = new Recording();

    @Test
    void theFirstFailureOfAMinuteCarriesItsStackTraceAndTheOthersNameIt() {
        ThrottledLog log = new ThrottledLog(recording, time, 10);
        IOException down = new IOException("connection refused");

        log.warn(down, "store failed for {}", "POST /v1/orders");
        log.warn(down, "store failed for {}", "POST /v1/refunds");

        assertThat(recording.lines).containsExactly(
                new Line("store failed for POST /v1/orders", down),
                new Line("store failed for POST /v1/refunds: java.io.IOException: connection refused", null));
    }

    @Test
    void aStackTraceIsWrittenAgainAMinuteLater() {
        ThrottledLog log = new ThrottledLog(recording, time, 10);
        IllegalStateException broken = new IllegalStateException("stage threw");

        log.warn(broken, "decision failed");
        time.advance(Duration.ofSeconds(59));
        log.warn(broken, "decision failed");
        time.advance(Duration.ofSeconds(1));
        log.warn(broken, "decision failed");

        assertThat(recording.lines).extracting(Line::stack).containsExactly(broken, null, broken);
    }

    @Test
    void failureLinesCountAgainstTheSameBudgetAsOtherLines() {
        ThrottledLog log = new ThrottledLog(recording, time, 2);
        IOException down = new IOException("down");

        log.warn("one");
        log.warn(down, "two");
        log.warn(down, "three");
        log.warn(down, "four");
        time.advance(Duration.ofMinutes(1));
        log.warn(down, "five");

        assertThat(recording.lines).extracting(Line::text)
                .containsExactly("one", "two", "(2 similar lines suppressed)", "five");
        assertThat(log.suppressed()).isZero();
    }
}
