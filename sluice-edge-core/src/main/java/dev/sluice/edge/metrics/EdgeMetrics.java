package dev.sluice.edge.metrics;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The edge's meters (SPEC §3.13), exposed in Prometheus text on the admin port:
 * <ul>
 *   <li>{@code sluice_edge_decisions_total{route, outcome, key_class, dry_run}}: every decision by
 *       outcome ({@code allowed}, {@code rate_limited}, {@code quota_exhausted},
 *       {@code cost_exceeds_burst}, {@code shed}, {@code unavailable}, {@code unauthenticated},
 *       {@code bad_request}, {@code usage}); shed requests are their own outcome, apart from 429s and errors;</li>
 *   <li>{@code sluice_edge_upstream_responses_total{route, class}}: upstream answers by status class
 *       ({@code 2xx} ...), plus {@code unreachable} and {@code timeout} for the edge's 502/504;</li>
 *   <li>{@code sluice_edge_decision_seconds}: decision latency histogram (head received to verdict);</li>
 *   <li>{@code sluice_edge_rejected_requests_total{reason}}: requests refused before any decision
 *       (header flood, bad request line, a head not complete in time);</li>
 *   <li>{@code sluice_edge_client_stalls_total{route}}: forwarded requests whose body stopped (408);</li>
 *   <li>{@code sluice_edge_rejected_connections_total{reason}}: connections closed when accepted
 *       ({@code per_ip_limit});</li>
 *   <li>{@code sluice_edge_connection_errors_total{kind}}: errors client connections caused ({@code io},
 *       {@code http2_enhance_your_calm}, ...).</li>
 * </ul>
 * Label values come from the configuration (route ids, plan names) and closed sets, never from
 * traffic: no per-key labels, so cardinality stays bounded. Thread-safe.
 */
public final class EdgeMetrics {

    private final MeterRegistry registry;
    private final Timer decisionLatency;
    private static final DecisionOutcome[] OUTCOMES = DecisionOutcome.values();

    private final ConcurrentHashMap<DecisionRecord, Counter> decisions = new ConcurrentHashMap<>();
    /** the decision counters by route, then plan, then outcome and dry-run: {@link #decisionCounter} */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, AtomicReferenceArray<Counter>>> decisionsByRoute =
            new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> upstream = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> rejected = new ConcurrentHashMap<>();

    public EdgeMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.decisionLatency = Timer.builder("sluice.edge.decision")
                .description("Time from a request head to the edge's verdict")
                // fixed buckets around the 1 ms rejection budget (SPEC §3.2): a short, stable series
                .serviceLevelObjectives(micros(10), micros(25), micros(50), micros(100), micros(250), micros(500),
                        micros(1_000), micros(2_500), micros(5_000), micros(10_000), micros(50_000),
                        micros(250_000))
                .register(registry);
    }

    private static Duration micros(long us) {
        return Duration.ofNanos(us * 1_000);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Counts one decision and records how long it took. */
    public void decision(DecisionRecord record, long latencyNanos) {
        decisionCounter(record).increment();
        decisionLatency.record(Math.max(0, latencyNanos), TimeUnit.NANOSECONDS);
    }

    /**
     * The counter of {@code record}'s series (the record without its key id: a refused key is never a label).
     * Per decision this is two lookups by the route's and the plan's names (strings from the configuration,
     * their hashes cached) and an array read by outcome, instead of hashing a fresh record; the meter is
     * created, and remembered, on a series' first decision.
     */
    private Counter decisionCounter(DecisionRecord record) {
        ConcurrentHashMap<String, AtomicReferenceArray<Counter>> byClass = decisionsByRoute.get(record.route());
        if (byClass == null) {
            byClass = decisionsByRoute.computeIfAbsent(record.route(), r -> new ConcurrentHashMap<>());
        }
        AtomicReferenceArray<Counter> byOutcome = byClass.get(record.keyClass());
        if (byOutcome == null) {
            byOutcome = byClass.computeIfAbsent(record.keyClass(),
                    c -> new AtomicReferenceArray<>(OUTCOMES.length * 2));
        }
        int slot = record.outcome().ordinal() * 2 + (record.dryRun() ? 1 : 0);
        Counter counter = byOutcome.get(slot);
        if (counter == null) {
            // two threads may both get here: the map (and Micrometer's registry) hand both the same counter
            counter = decisions.computeIfAbsent(record.withoutKeyId(), r -> Counter.builder("sluice.edge.decisions")
                    .description("Edge decisions by route, outcome and key class")
                    .tag("route", r.route()).tag("outcome", r.outcome().label()).tag("key_class", r.keyClass())
                    .tag("dry_run", Boolean.toString(r.dryRun()))
                    .register(registry));
            byOutcome.set(slot, counter);
        }
        return counter;
    }

    /** Counts one upstream answer by status class ({@code 2xx}, ...). */
    public void upstreamStatus(String route, int status) {
        upstreamOutcome(route, (status / 100) + "xx");
    }

    /** Counts an upstream failure: {@code unreachable} (502) or {@code timeout} (504). */
    public void upstreamOutcome(String route, String statusClass) {
        upstream.computeIfAbsent(route + '\u0000' + statusClass, k -> Counter.builder("sluice.edge.upstream.responses")
                .description("Upstream answers by status class")
                .tag("route", route).tag("class", statusClass)
                .register(registry)).increment();
    }

    /**
     * Counts a request admitted but dropped before it reached the upstream ({@code deadline}: its client
     * deadline passed while it waited for a connection, SPEC §3.9).
     */
    public void dropped(String route, String reason) {
        rejected.computeIfAbsent("dropped\u0000" + route + '\u0000' + reason, k -> Counter.builder("sluice.edge.dropped")
                .description("Admitted requests dropped before reaching the upstream")
                .tag("route", route).tag("reason", reason)
                .register(registry)).increment();
    }

    /**
     * Counts a forwarded request whose client stopped sending its body for {@code body-idle-timeout}: a 408,
     * the client's fault (RFC 9110 §15.5.9), apart from upstream timeouts.
     */
    public void clientStall(String route) {
        rejected.computeIfAbsent("stall\u0000" + route, k -> Counter.builder("sluice.edge.client.stalls")
                .description("Forwarded requests whose client stopped sending the body (408)")
                .tag("route", route)
                .register(registry)).increment();
    }

    /** Counts a connection closed as soon as it was accepted ({@code per_ip_limit}: its address has too many). */
    public void rejectedConnection(String reason) {
        rejected.computeIfAbsent("connection\u0000" + reason, k -> Counter.builder("sluice.edge.rejected.connections")
                .description("Connections closed when accepted")
                .tag("reason", reason)
                .register(registry)).increment();
    }

    /**
     * Counts an error a client connection caused ({@code io}: reset or broken pipe; {@code http2_<error>}: an
     * HTTP/2 protocol error such as {@code http2_enhance_your_calm} for a rapid-reset flood; {@code decoder}).
     */
    public void connectionError(String kind) {
        rejected.computeIfAbsent("error\u0000" + kind, k -> Counter.builder("sluice.edge.connection.errors")
                .description("Errors caused by client connections (resets, HTTP/2 protocol errors)")
                .tag("kind", kind)
                .register(registry)).increment();
    }

    /** Counts a request refused before a decision ({@code header_flood}, {@code bad_request_line}, ...). */
    public void rejectedBeforeDecision(String reason) {
        rejected.computeIfAbsent(reason, r -> Counter.builder("sluice.edge.rejected.requests")
                .description("Requests refused before any decision")
                .tag("reason", r)
                .register(registry)).increment();
    }
}
