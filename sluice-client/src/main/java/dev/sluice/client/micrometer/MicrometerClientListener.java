package dev.sluice.client.micrometer;

import dev.sluice.client.ClientListener;
import dev.sluice.client.FallbackReason;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Binds {@link ClientListener} events to Micrometer meters (SPEC §4.9, §5.5). Requires
 * {@code io.micrometer:micrometer-core} on the class path (an optional dependency of
 * {@code sluice-client}). Meters, all tagged {@code host}:
 *
 * <ul>
 *   <li>{@code sluice.client.requests} — attempts sent, the transport's own re-sends included</li>
 *   <li>{@code sluice.client.transport.resends} — requests the JDK HttpClient may have re-sent
 *       underneath an attempt (a GET/HEAD whose connection closed before any response byte)</li>
 *   <li>{@code sluice.client.accepts} — answers not 429/503/overload</li>
 *   <li>{@code sluice.client.retries} — retries granted</li>
 *   <li>{@code sluice.client.local.drops} — calls dropped by the adaptive throttle</li>
 *   <li>{@code sluice.client.budget.exhausted} — retries refused, tag {@code scope}</li>
 *   <li>{@code sluice.client.quota.errors} — quota exhausted, tag {@code policy}</li>
 *   <li>{@code sluice.client.shed} — shed calls, tag {@code reason} (counted apart from errors)</li>
 *   <li>{@code sluice.client.fallbacks} — degraded answers, tag {@code reason}</li>
 *   <li>{@code sluice.client.queue.wait} — timer: time a call waited before it started</li>
 *   <li>{@code sluice.client.retry.wait} — timer: the wait before each retry</li>
 * </ul>
 *
 * <p>Thread-safe; meters are looked up through the registry's own cache.
 */
public final class MicrometerClientListener implements ClientListener {

    private final MeterRegistry registry;

    public MicrometerClientListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    private Counter counter(String name, String host, String... tags) {
        String[] all = new String[tags.length + 2];
        all[0] = "host";
        all[1] = host;
        System.arraycopy(tags, 0, all, 2, tags.length);
        return registry.counter(name, all);
    }

    @Override
    public void onAttempt(String host, int attempt) {
        counter("sluice.client.requests", host).increment();
    }

    @Override
    public void onTransportResend(String host, int attempt) {
        counter("sluice.client.requests", host).increment();
        counter("sluice.client.transport.resends", host).increment();
    }

    @Override
    public void onAccepted(String host, int status) {
        counter("sluice.client.accepts", host).increment();
    }

    @Override
    public void onRetryScheduled(String host, int nextAttempt, Duration wait) {
        counter("sluice.client.retries", host).increment();
        Timer.builder("sluice.client.retry.wait").tag("host", host).register(registry).record(wait);
    }

    @Override
    public void onLocalDrop(String host, double dropProbability) {
        counter("sluice.client.local.drops", host).increment();
    }

    @Override
    public void onBudgetExhausted(String host, RetryBudgetExhaustedException.Scope scope) {
        counter("sluice.client.budget.exhausted", host, "scope", scope.name().toLowerCase(java.util.Locale.ROOT)).increment();
    }

    @Override
    public void onQuotaExceeded(String host, @Nullable String policy, @Nullable Instant resetAt) {
        counter("sluice.client.quota.errors", host, "policy", policy == null ? "unknown" : policy).increment();
    }

    @Override
    public void onShed(String host, ShedReason reason) {
        counter("sluice.client.shed", host, "reason", reason.wireName()).increment();
    }

    @Override
    public void onQueueWait(String host, Duration waited) {
        Timer.builder("sluice.client.queue.wait").tag("host", host).register(registry).record(waited);
    }

    @Override
    public void onFallback(String host, FallbackReason reason) {
        counter("sluice.client.fallbacks", host, "reason", reason.wireName()).increment();
    }
}
