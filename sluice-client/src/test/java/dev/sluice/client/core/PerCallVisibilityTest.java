package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.AttemptOutcome;
import dev.sluice.client.CallEvent;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.Snapshots;
import dev.sluice.client.WaitReason;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SPEC §4.9: each listener event says which call, which attempt, what the answer was and why it waits. */
class PerCallVisibilityTest {

    @Test
    void theListenerSeesTheCallItsAttemptsTheirOutcomesAndTheWaitsWithTheirReasons() {
        List<String> events = new ArrayList<>();
        ClientListener listener = new ClientListener() {
            @Override
            public void onAttemptStart(CallEvent call, int attempt) {
                events.add("start " + call.callId() + " " + call.method() + " " + call.uri() + " " + call.idempotencyKey()
                        + " #" + attempt);
            }

            @Override
            public void onAttemptEnd(CallEvent call, int attempt, AttemptOutcome outcome, int status) {
                events.add("end #" + attempt + " " + outcome + " " + status);
            }

            @Override
            public void onRetryScheduled(CallEvent call, int nextAttempt, Duration wait, WaitReason reason) {
                events.add("retry #" + nextAttempt + " " + reason + " >= 1 s: " + (wait.compareTo(Duration.ofSeconds(1)) >= 0));
            }

            @Override
            public void onCallEnd(CallEvent call, int attempts, Duration waited, SluiceException error) {
                events.add("call end " + attempts + " attempts, waited >= 1 s: " + (waited.compareTo(Duration.ofSeconds(1)) >= 0)
                        + ", " + (error == null ? "ok" : error.getClass().getSimpleName()));
            }
        };
        CoreHarness h = new CoreHarness(ClientConfig.defaults(), listener, 1).server(s -> response(s.attempt() == 1
                ? Snapshots.overloaded(503, Duration.ofSeconds(1)) : Snapshots.ok()));
        URI uri = URI.create("https://api.example.com/v1/labels");
        long id = h.open(CallSpec.of("POST", "api.example.com").withUri(uri));
        h.run(Duration.ofMinutes(1));
        assertThat(h.result(id).ok()).isTrue();
        assertThat(events).containsExactly(
                "start 0 POST " + uri + " K1 #1",
                "end #1 OVERLOADED 503",
                "retry #2 HINT >= 1 s: true",
                "start 0 POST " + uri + " K1 #2",
                "end #2 SUCCESS 200",
                "call end 2 attempts, waited >= 1 s: true, ok");
    }

    @Test
    void statsSayWhatHappenedWithoutMapsOfZeros() {
        CoreHarness h = new CoreHarness(ClientConfig.defaults()).server(s -> response(Snapshots.overloaded(503, null)));
        long id = h.open(CallSpec.of("GET", "api"));
        h.run(Duration.ofMinutes(1));
        assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class);
        assertThat(h.core.stats().toString())
                .isEqualTo("ClientStats[1 calls: 0 succeeded, 1 failed; 3 attempts, 0 accepted, 2 retries]")
                .doesNotContain("=0");
    }
}
