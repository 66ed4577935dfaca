package dev.sluice.client.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.FallbackReason;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedReason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerClientListenerTest {

    @Test
    void eventsBecomeTaggedMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerClientListener l = new MicrometerClientListener(registry);
        l.onAttempt("api.test", 1);
        l.onAttempt("api.test", 2);
        l.onAccepted("api.test", 200);
        l.onRetryScheduled("api.test", 2, Duration.ofMillis(700));
        l.onLocalDrop("api.test", 0.4);
        l.onBudgetExhausted("api.test", RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET);
        l.onQuotaExceeded("api.test", "daily", null);
        l.onShed("api.test", ShedReason.EVICTED);
        l.onShed("api.test", ShedReason.FULL);
        l.onFallback("api.test", FallbackReason.OVERLOADED);
        l.onQueueWait("api.test", Duration.ofMillis(250));

        assertThat(registry.get("sluice.client.requests").tag("host", "api.test").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("sluice.client.accepts").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.retries").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.local.drops").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.budget.exhausted").tag("scope", "client_retry_budget").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.quota.errors").tag("policy", "daily").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.shed").tag("reason", "evicted").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.shed").tag("reason", "full").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.fallbacks").tag("reason", "overloaded").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("sluice.client.queue.wait").timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(250.0);
        assertThat(registry.get("sluice.client.retry.wait").timer().count()).isEqualTo(1);
    }
}
