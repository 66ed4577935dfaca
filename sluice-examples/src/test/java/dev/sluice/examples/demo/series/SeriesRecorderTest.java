package dev.sluice.examples.demo.series;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SeriesRecorderTest {

    private final ManualTimeSource clock = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final SeriesRecorder recorder = new SeriesRecorder(clock, 3);

    @Test
    void anAttemptAnsweredInALaterSecondCountsItsOutcomeInTheSecondItWasSent() {
        recorder.start();
        clock.advance(Duration.ofMillis(990));
        int second = recorder.attemptSent();
        clock.advance(Duration.ofMillis(30)); // the answer arrives in second 1

        recorder.attemptAnswered(second, Series.RATE_LIMITED);

        assertThat(second).isZero();
        assertThat(recorder.second(0).get(Series.OFFERED)).isEqualTo(1);
        assertThat(recorder.second(0).get(Series.RATE_LIMITED)).isEqualTo(1);
        assertThat(recorder.second(0).unanswered()).isZero();
        assertThat(recorder.second(1).get(Series.OFFERED)).isZero();
    }

    @Test
    void anAttemptNotYetAnsweredShowsAsUnanswered() {
        recorder.start();
        recorder.attemptSent();
        int s = recorder.attemptSent();
        recorder.attemptAnswered(s, Series.ADMITTED);

        assertThat(recorder.second(0).get(Series.OFFERED)).isEqualTo(2);
        assertThat(recorder.second(0).outcomes()).isEqualTo(1);
        assertThat(recorder.second(0).unanswered()).isEqualTo(1);
    }

    @Test
    void attemptsBeforeTheStartOrPastTheCapacityAreNotCountedInEitherStep() {
        int before = recorder.attemptSent();
        recorder.attemptAnswered(before, Series.ADMITTED);
        recorder.start();
        clock.advance(Duration.ofSeconds(3)); // capacity is 3 seconds: 0, 1, 2
        int after = recorder.attemptSent();
        recorder.attemptAnswered(after, Series.ADMITTED);

        assertThat(before).isEqualTo(SeriesRecorder.OUT_OF_RANGE);
        assertThat(after).isEqualTo(SeriesRecorder.OUT_OF_RANGE);
        assertThat(recorder.seconds(3)).allSatisfy(c -> assertThat(c.get(Series.OFFERED)).isZero());
    }

    @Test
    void eventsAreCountedInTheSecondTheyHappen() {
        recorder.start();
        clock.advance(Duration.ofMillis(2_500));
        recorder.event(Series.RETRIES);
        recorder.event(Series.LOCAL_DROPS);

        assertThat(recorder.second(2).get(Series.RETRIES)).isEqualTo(1);
        assertThat(recorder.second(2).get(Series.LOCAL_DROPS)).isEqualTo(1);
        assertThat(recorder.second(2).get(Series.OFFERED)).isZero();
    }

    @Test
    void offeredAndOutcomesCannotBeCountedAsPlainEvents() {
        recorder.start();
        assertThatThrownBy(() -> recorder.event(Series.OFFERED)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> recorder.event(Series.UNAVAILABLE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> recorder.attemptAnswered(0, Series.RETRIES)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theOutcomesAreExactlyTheFiveAnswerKinds() {
        assertThat(java.util.Arrays.stream(Series.values()).filter(Series::isOutcome))
                .containsExactly(Series.ADMITTED, Series.RATE_LIMITED, Series.QUOTA_EXHAUSTED, Series.UNAVAILABLE,
                        Series.OTHER);
    }
}
