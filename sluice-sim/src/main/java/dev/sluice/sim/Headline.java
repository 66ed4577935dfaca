package dev.sluice.sim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The headline figures of one variant over the scenario's measure window, by name (the names are
 * stable: the report, the JSON output and a grid's {@code metric} use them). A figure that does not
 * apply is {@code NaN}. Immutable.
 *
 * <table>
 *   <caption>Figures</caption>
 *   <tr><th>name</th><th>meaning</th></tr>
 *   <tr><td>{@code calls_per_s}</td><td>calls opened per second (the demand)</td></tr>
 *   <tr><td>{@code requests_per_s}</td><td>requests reaching the server per second</td></tr>
 *   <tr><td>{@code peak_requests_per_s}</td><td>the busiest second's requests, first attempts included</td></tr>
 *   <tr><td>{@code peak_retries_per_s}</td><td>the busiest second's retries: the herd a blip sends back
 *       (SPEC §7.2: 10,000 in one second without jitter, about 2,000 with it)</td></tr>
 *   <tr><td>{@code retries_per_s}</td><td>requests that were retries, per second</td></tr>
 *   <tr><td>{@code accepts_per_s}</td><td>requests admitted, per second</td></tr>
 *   <tr><td>{@code useful_throughput_per_s}</td><td>calls that succeeded, per second</td></tr>
 *   <tr><td>{@code failures_per_s}</td><td>calls that failed, per second</td></tr>
 *   <tr><td>{@code drops_per_s}</td><td>local refusals (throttle and admission queue), per second</td></tr>
 *   <tr><td>{@code amplification}</td><td>requests ÷ calls</td></tr>
 *   <tr><td>{@code drop_fraction}</td><td>local refusals ÷ calls, the same refusals as {@code drops_per_s}
 *       (with no admission queue, SPEC §4.5's drop probability)</td></tr>
 *   <tr><td>{@code accept_ratio}</td><td>accepts ÷ (requests + throttle drops): the ratio the throttle
 *       sees</td></tr>
 *   <tr><td>{@code latency_mean_ms}, {@code latency_p99_ms}</td><td>end-to-end latency of the calls that
 *       succeeded in the window: from the application opening the call to its success, so every
 *       retry, backoff, queue wait and application re-call of that call is inside it (p99: nearest
 *       rank, within 0.1 %)</td></tr>
 *   <tr><td>{@code finished_latency_mean_ms}, {@code finished_latency_p99_ms}</td><td>the same over
 *       every call that finished in the window, failures included (opening to the final error the
 *       application saw): a retry policy that gives up late shows here, where the successes alone
 *       would hide it</td></tr>
 *   <tr><td>{@code waiting_mean}</td><td>calls waiting in clients, time-averaged: Little's {@code L}</td></tr>
 *   <tr><td>{@code wait_entries_per_s}</td><td>calls entering the wait per second: Little's {@code λ}</td></tr>
 *   <tr><td>{@code wait_mean_ms}</td><td>mean time a call waited before it started or was dropped:
 *       Little's {@code W}</td></tr>
 *   <tr><td>{@code recovery_s}</td><td>seconds from the end of the last outage until requests stay
 *       within 10 % of calls for 10 s (or to the end of the run); {@code -1} when that never happens (the
 *       terminal table prints {@code never}); {@code NaN}
 *       without an outage</td></tr>
 * </table>
 *
 * @param values the figures in the order of {@link #METRICS}
 */
public record Headline(Map<String, Double> values) {

    /** Every figure's name, in report order. */
    public static final List<String> METRICS = List.of("calls_per_s", "requests_per_s", "peak_requests_per_s",
            "peak_retries_per_s", "retries_per_s", "accepts_per_s", "useful_throughput_per_s", "failures_per_s",
            "drops_per_s",
            "amplification", "drop_fraction", "accept_ratio", "latency_mean_ms", "latency_p99_ms",
            "finished_latency_mean_ms", "finished_latency_p99_ms", "waiting_mean",
            "wait_entries_per_s", "wait_mean_ms", "recovery_s");

    public Headline {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /**
     * The figure {@code name}.
     *
     * @throws IllegalArgumentException for a name not in {@link #METRICS}
     */
    public double get(String name) {
        Double v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no headline figure named " + name + "; known: " + METRICS);
        }
        return v;
    }
}
