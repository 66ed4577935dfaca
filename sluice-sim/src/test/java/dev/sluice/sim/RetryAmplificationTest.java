package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.sim.scenario.BuiltInScenarios;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC §7.2: a limit of 200 req/s, 200 workers, 3 attempts with sleep(2^attempt) on 429. The
 * arrivals are evenly spaced (no sampling noise) and the loop has no jitter, so the naive figures
 * are exact; the SDK's only randomness is its jitter and throttle draws.
 */
class RetryAmplificationTest {

    private static VariantResult naive;
    private static VariantResult sdk;

    @BeforeAll
    static void run() {
        SimulationResult r = Simulation.run(BuiltInScenarios.load("retry-amplification"));
        naive = r.variant("naive loop");
        sdk = r.variant("sdk");
    }

    @Test
    void theNaiveLoopTriplesTheOfferedLoadToSixHundredPerSecondDuringTheIncident() {
        // 200 calls/s, each sent 3 times (at t, t + 1 s, t + 3 s) while everything is refused
        assertThat(naive.headline().get("peak_requests_per_s")).isEqualTo(600.0);
        for (int s = 24; s < 30; s++) {
            assertThat(naive.second(s).requests()).as("second %d", s).isEqualTo(600);
        }
    }

    @Test
    void theNaiveLoopKeepsTheLoadUpLongAfterTheIncidentEnds() {
        // demand already fills the limit, so the extra requests keep being refused: a long recovery
        assertThat(naive.headline().get("recovery_s")).isEqualTo(-1.0); // not within the 150 s after it
        double after = naive.rows().subList(120, 180).stream().mapToLong(SecondRow::requests).average().orElseThrow();
        assertThat(after).isGreaterThan(400); // still more than twice the 200 calls/s, 90 s later
    }

    @Test
    void theSdkKeepsItsPeakAtTheLimitAboutAThirdOfTheNaivePeak() {
        double ratio = sdk.headline().get("peak_requests_per_s") / naive.headline().get("peak_requests_per_s");
        assertThat(sdk.headline().get("peak_requests_per_s")).isLessThanOrEqualTo(220.0); // limit + 10 % budget
        assertThat(ratio).isBetween(0.30, 0.37); // "about a third of the peak request count"
        assertThat(sdk.headline().get("recovery_s")).isZero(); // back to calls ≈ requests at once
    }

    @Test
    void dropFractionAndDropsPerSecondCountTheSameLocalRefusals() {
        // the SDK refuses calls locally (its admission queue is full during the incident): both figures see them
        double drops = sdk.headline().get("drops_per_s");
        assertThat(drops).isPositive();
        assertThat(sdk.headline().get("drop_fraction"))
                .isCloseTo(drops / sdk.headline().get("calls_per_s"), within(1e-9));
        assertThat(naive.headline().get("drops_per_s")).isZero();
        assertThat(naive.headline().get("drop_fraction")).isZero();
    }

    @Test
    void bothDeliverTheSameUsefulThroughput() {
        double naiveUseful = naive.headline().get("useful_throughput_per_s");
        double sdkUseful = sdk.headline().get("useful_throughput_per_s");
        assertThat(sdkUseful).isCloseTo(naiveUseful, within(0.03 * naiveUseful));
        assertThat(naiveUseful).isBetween(180.0, 200.0); // the limit, less the incident
    }

    @Test
    void latencyIsEndToEndPerLogicalCallRetriesAndFailuresIncluded() {
        // a naive call that succeeds on its third attempt slept 1 s + 2 s, was refused twice (a 50 ms
        // round trip each) and served once (50 ms + 20 ms of service): 3.17 s, the slowest a success can be
        assertThat(naive.headline().get("latency_p99_ms")).isCloseTo(3_170.0, within(4.0));
        assertThat(naive.rows().stream().filter(r -> !Double.isNaN(r.latencyP99Millis()))
                .mapToDouble(SecondRow::latencyP99Millis).max().orElseThrow()).isCloseTo(3_170.0, within(1.0));
        // calls that gave up after three refusals took 1 s + 2 s + 3 × 50 ms (no service: refused at once),
        // so counting them moves the mean up: the successes alone flatter the naive loop
        assertThat(naive.headline().get("finished_latency_mean_ms"))
                .isGreaterThan(naive.headline().get("latency_mean_ms"));
        assertThat(naive.headline().get("finished_latency_p99_ms")).isGreaterThan(3_000.0);
        // the SDK's latency includes the time calls waited in its queue for a token
        assertThat(sdk.headline().get("latency_mean_ms")).isGreaterThan(sdk.headline().get("wait_mean_ms"));
    }

    @Test
    void aSecondWithoutSuccessesHasNoLatencyRatherThanZero() {
        // seconds 21-29: every request refused, nothing succeeds
        for (int s = 21; s < 30; s++) {
            assertThat(naive.second(s).successes()).isZero();
            assertThat(naive.second(s).latencyMeanMillis()).as("second %d", s).isNaN();
            assertThat(naive.second(s).latencyP99Millis()).as("second %d", s).isNaN();
        }
    }
}
