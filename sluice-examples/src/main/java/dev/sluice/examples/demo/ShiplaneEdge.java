package dev.sluice.examples.demo;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.config.AdminConfig;
import dev.sluice.examples.demo.fleet.Tenancy;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.config.ConfigException;
import dev.sluice.limiter.config.KeyBinding;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The real Sluice edge as the demo runs it: {@code examples/shiplane.yaml} (or {@code --config}),
 * bound to loopback on the demo's port, its admin (metrics) port on a free one, proxying to the
 * Shiplane of this run, with the fleet's generated keys bound to their plans. If the file has no
 * {@code trial} plan, the demo adds one: Free's burst policies and a small daily quota
 * ({@link DemoSettings#trialDailyQuota()}), so that {@code quota_exhausted} shows within a minute.
 * Quota warnings (SPEC §3.8) are counted instead of logged, so they do not interleave with the table.
 */
public final class ShiplaneEdge implements DemoEdge {

    private final EdgeServer server;
    private final String description;
    private final LongAdder quotaWarnings;
    private final double limitPerSecond;

    private ShiplaneEdge(EdgeServer server, String description, LongAdder quotaWarnings, double limitPerSecond) {
        this.server = server;
        this.description = description;
        this.quotaWarnings = quotaWarnings;
        this.limitPerSecond = limitPerSecond;
    }

    /** Starts the demo's edge; the {@link DemoEdge.Starter} of {@code sluice demo}. */
    public static DemoEdge.Starter starter() {
        return ShiplaneEdge::start;
    }

    /**
     * Loads {@code settings.config()}, adds the demo's keys (and Trial plan) and starts the edge.
     *
     * @throws ConfigException if the file is invalid
     * @throws IllegalArgumentException if the file lacks the {@code free} plan
     * @throws IOException if the edge cannot listen (the port is taken)
     */
    public static ShiplaneEdge start(DemoSettings settings, URI upstream, List<Tenancy> groups) throws IOException {
        EdgeConfig base = EdgeConfig.load(settings.config());
        boolean addsTrial = !base.plans().containsKey(DemoFleetShape.TRIAL);
        EdgeConfig config = demoConfig(base, settings, upstream, groups);
        LongAdder warnings = new LongAdder();
        EdgeServer server;
        try {
            server = EdgeServer.start(config, EdgeOptions.defaults().withQuotaWarningSink(w -> warnings.increment()));
        } catch (IllegalStateException e) {
            throw new IOException("the edge cannot start on port " + settings.edgePort() + ": " + e.getMessage(), e);
        }
        int keys = groups.stream().mapToInt(g -> g.keys().size()).sum();
        Plan trial = config.plans().get(DemoFleetShape.TRIAL);
        String description = String.format(Locale.ROOT, "config %s + %d demo keys%s; metrics http://127.0.0.1:%d/metrics",
                settings.config(), keys, addsTrial ? " and a Trial plan (" + describe(trial) + ")" : "",
                server.adminPort());
        return new ShiplaneEdge(server, description, warnings, limitPerSecond(config, groups));
    }

    /**
     * The fleet's limit: over its keys, the sum of each key's sustained burst rate (the smallest
     * {@code q/w} of its plan's burst policies, in units per second; SPEC §1).
     */
    static double limitPerSecond(EdgeConfig config, List<Tenancy> groups) {
        double sum = 0;
        for (Tenancy group : groups) {
            if (group.clients() == 0) {
                continue;
            }
            double rate = Double.POSITIVE_INFINITY;
            for (Policy p : config.plans().get(group.plan()).policies()) {
                if (p instanceof BurstPolicy b) {
                    rate = Math.min(rate, (double) b.quota() / b.windowSeconds());
                }
            }
            if (rate != Double.POSITIVE_INFINITY) {
                sum += rate * group.keys().size();
            }
        }
        return sum;
    }

    /** The configuration the demo runs: {@code base} on loopback, with the fleet's keys bound. */
    static EdgeConfig demoConfig(EdgeConfig base, DemoSettings settings, URI upstream, List<Tenancy> groups) {
        Map<String, Plan> plans = new LinkedHashMap<>(base.plans());
        Plan free = plans.get(DemoFleetShape.FREE);
        if (free == null) {
            throw new IllegalArgumentException(settings.config() + ": the demo needs a plan named \""
                    + DemoFleetShape.FREE + "\"; found " + plans.keySet());
        }
        plans.computeIfAbsent(DemoFleetShape.TRIAL, name -> trialPlan(free, settings.trialDailyQuota()));
        Map<String, KeyBinding> keys = new LinkedHashMap<>(base.keys());
        for (Tenancy group : groups) {
            Plan plan = plans.get(group.plan());
            for (String key : group.keys()) {
                keys.put(key, new KeyBinding(key, plan, 0));
            }
        }
        // loopback only; no source file, so no reload can drop the demo keys mid-run
        return new EdgeConfig(base.listen().withHost("127.0.0.1").withPort(settings.edgePort()),
                Optional.of(new AdminConfig("127.0.0.1", 0)), base.upstream().withUrl(upstream), base.store(),
                base.problem(), base.softLimitPercent(), base.anonymousPlan(), plans, keys, base.routes(),
                Optional.empty(), List.of());
    }

    /** Free's burst policies and a daily quota of {@code dailyQuota} (named as Free's quota, if any). */
    static Plan trialPlan(Plan free, long dailyQuota) {
        List<Policy> policies = new ArrayList<>();
        String quotaName = "daily";
        for (Policy p : free.policies()) {
            switch (p) {
                case BurstPolicy b -> policies.add(b);
                case QuotaPolicy q -> quotaName = q.name();
                case ConcurrencyPolicy c -> policies.add(c);
            }
        }
        policies.add(QuotaPolicy.daily(quotaName, dailyQuota));
        return Plan.of(DemoFleetShape.TRIAL, policies);
    }

    private static String describe(Plan plan) {
        List<String> parts = new ArrayList<>();
        for (Policy p : plan.policies()) {
            parts.add(switch (p) {
                case BurstPolicy b -> String.format(Locale.ROOT, "burst %d per %d s", b.quota(), b.windowSeconds());
                case QuotaPolicy q -> String.format(Locale.ROOT, "%,d a day", q.quota());
                case ConcurrencyPolicy c -> String.format(Locale.ROOT, "%d in flight", c.quota());
            });
        }
        return String.join(", ", parts);
    }

    /** The running edge (its metrics registry, its store). */
    public EdgeServer server() {
        return server;
    }

    @Override
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public double limitPerSecond() {
        return limitPerSecond;
    }

    @Override
    public long escalated() {
        return (long) server.registry().find("sluice.edge.decisions").tag("outcome", "escalated").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    @Override
    public String summary() {
        return String.format(Locale.ROOT, "edge:   %,d quota.warning events (one per key and day past %d %% of a quota, SPEC 3.8)",
                quotaWarnings.sum(), server.config().softLimitPercent());
    }

    @Override
    public void close() {
        server.close();
    }
}
