package dev.sluice.sim.report;

import dev.sluice.sim.scenario.FleetSettings;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ServerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** A variant's settings as short lines for the report and the terminal. */
final class Settings {

    private Settings() {
    }

    static List<String[]> of(Scenario.Variant v) {
        List<String[]> out = new ArrayList<>();
        ServerSettings s = v.server();
        FleetSettings f = v.fleet();
        out.add(row("server", "rtt " + d(s.rtt()) + ", service " + s.serviceTime().distribution().name().toLowerCase()
                + " " + d(s.serviceTime().mean())));
        out.add(row("limit", s.limit() == null ? "none" : s.limit().scope().name().toLowerCase() + ": "
                + s.limit().policies().stream().map(p -> p.daily() ? p.name() + " " + p.quota() + "/day"
                        : p.name() + " q=" + p.quota() + " w=" + p.windowSeconds() + "s").collect(Collectors.joining(", "))));
        ServerSettings.Capacity c = s.capacity();
        out.add(row("capacity", (c.maxConcurrent() == 0 ? "unbounded concurrency" : c.maxConcurrent() + " concurrent")
                + ", " + (c.rateBounded() ? Numbers.format(c.ratePerSecond()) + "/s" : "no rate bound")
                + (c.retryAfter() == null ? "" : ", shed with Retry-After " + d(c.retryAfter()))));
        out.add(row("outages", s.outages().isEmpty() ? "none" : s.outages().stream()
                .map(o -> d(o.from()) + "-" + d(o.to()) + " " + o.status()
                        + (o.retryAfter() == null ? "" : " Retry-After " + d(o.retryAfter())))
                .collect(Collectors.joining(", "))));
        FleetSettings.Arrivals a = f.arrivals();
        String arrivals = switch (a.process()) {
            case CONSTANT, POISSON -> a.process().name().toLowerCase() + " " + Numbers.format(a.ratePerClient())
                    + " calls/s per client";
            case BURST -> a.size() + " call(s) per client " + (a.every() == null ? "once" : "every " + d(a.every()));
        };
        out.add(row("fleet", f.clients() + " clients, " + arrivals + " from " + d(a.from())
                + (a.to() == null ? "" : " to " + d(a.to()))));
        out.add(row("call", f.call().method() + ", deadline " + (f.call().deadline() == null ? "none" : d(f.call().deadline()))
                + ", priority " + f.call().priority().name().toLowerCase(java.util.Locale.ROOT) + ", cost " + f.call().cost()));
        FleetSettings.SdkSettings k = f.sdk();
        if (!k.enabled()) {
            out.add(row("sdk", "none: a plain HTTP client (one attempt, no pacer, throttle, budget or queue)"));
        } else {
            out.add(row("sdk retries", k.maxAttempts() + " attempts, jitter " + (k.jitter() ? "on" : "off")
                    + ", max wait " + d(k.maxWait())));
            out.add(row("sdk budget", k.budgetEnabled() ? Numbers.format(k.budgetRatio() * 100) + " % over "
                    + d(k.budgetWindow()) + ", floor " + k.budgetMinRetries() : "off"));
            out.add(row("sdk throttle", k.throttleEnabled() ? "K = " + Numbers.format(k.throttleK()) + " over "
                    + d(k.throttleWindow()) + (k.client().throttle().maxDropProbability() < 1 ? "" : ", safety valves off") : "off"));
            out.add(row("sdk pacer", (k.pacerPerSecond() > 0 ? Numbers.format(k.pacerPerSecond()) + "/s burst "
                    + Numbers.format(k.pacerBurst()) + " at " + Numbers.format(k.paceFraction() * 100) + " %"
                    : "nothing documented") + (k.followHeaders() ? ", follows headers" : "")
                    + (k.shared() ? ", bucket and budget shared by the fleet" : "")));
            out.add(row("sdk queue", "max queue " + k.maxQueue() + ", max concurrent " + k.maxConcurrent()));
        }
        FleetSettings.AppRetry r = f.appRetry();
        out.add(row("app loop", !r.enabled() ? "none (the SDK is the only layer that retries)"
                : r.attempts() + " calls, sleep " + d(r.base()) + " × " + Numbers.format(r.factor()) + "^n"
                        + (r.jitter() ? " × U(0,1)" : "") + " on " + r.on()
                        + (r.reuseIdempotencyKey() ? ", same Idempotency-Key" : ", new key per call")));
        return out;
    }

    private static String[] row(String k, String v) {
        return new String[] {k, v};
    }

    static String d(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0) {
            return (ms / 1000) + " s";
        }
        return ms + " ms";
    }
}
