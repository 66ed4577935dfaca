package dev.sluice.edge.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** SPEC §3.13: {@code sluice_edge_decisions_total{route, outcome, key_class, dry_run}}, never a key id. */
class DecisionCountersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EdgeMetrics metrics = new EdgeMetrics(registry);

    private double count(String route, String outcome, String keyClass, boolean dryRun) {
        var counter = registry.find("sluice.edge.decisions").tag("route", route).tag("outcome", outcome)
                .tag("key_class", keyClass).tag("dry_run", Boolean.toString(dryRun)).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void refusalsOfDifferentKeysCountIntoOneSeries() {
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false, "k1"), 1);
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false, "k2"), 1);
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false), 1);
        assertThat(count("GET /v1/labels", "rate_limited", "free", false)).isEqualTo(3);
        assertThat(registry.find("sluice.edge.decisions").counters()).hasSize(1);
    }

    @Test
    void eachLabelOfTheRecordIsItsOwnSeries() {
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false), 1);
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, true), 1);
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.ALLOWED, false), 1);
        metrics.decision(new DecisionRecord("GET /v1/labels", "pro", DecisionOutcome.RATE_LIMITED, false), 1);
        metrics.decision(new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false), 1);
        metrics.decision(new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false), 1);
        assertThat(count("GET /v1/labels", "rate_limited", "free", false)).isEqualTo(1);
        assertThat(count("GET /v1/labels", "rate_limited", "free", true)).isEqualTo(1);
        assertThat(count("GET /v1/labels", "allowed", "free", false)).isEqualTo(1);
        assertThat(count("GET /v1/labels", "rate_limited", "pro", false)).isEqualTo(1);
        assertThat(count("POST /v1/labels", "rate_limited", "free", false)).isEqualTo(2);
        assertThat(registry.find("sluice.edge.decisions").counters()).hasSize(5);
    }

    @Test
    void routeAndPlanNamesEqualButNotIdenticalFindTheSameSeries() {
        // a reloaded configuration builds new strings for the same names
        metrics.decision(new DecisionRecord(new String("GET /v1/labels"), new String("free"),
                DecisionOutcome.QUOTA_EXHAUSTED, false), 1);
        metrics.decision(new DecisionRecord(new String("GET /v1/labels"), new String("free"),
                DecisionOutcome.QUOTA_EXHAUSTED, false), 1);
        assertThat(count("GET /v1/labels", "quota_exhausted", "free", false)).isEqualTo(2);
    }

    @Test
    void everyDecisionIsTimed() {
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.ALLOWED, false), 2_000);
        metrics.decision(new DecisionRecord("GET /v1/labels", "free", DecisionOutcome.RATE_LIMITED, false), 4_000);
        var timer = registry.find("sluice.edge.decision").timer();
        assertThat(timer.count()).isEqualTo(2);
        assertThat(timer.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isEqualTo(6_000);
    }
}
