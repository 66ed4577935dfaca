package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.ClientKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@code sluice demo} runs. Immutable; start from {@link #defaults()}. The fleet, edge and blip
 * are run once per client of {@link #kinds()}, one after the other, each on a fresh Shiplane and edge.
 *
 * @param clients virtual clients in the fleet (1..5,000; default 200)
 * @param durationSeconds how long each client's run lasts (1..3,600; default 40)
 * @param blipAtSeconds when Shiplane starts answering 503, seconds after the start (default: the
 *     middle, {@code durationSeconds / 2})
 * @param blipForSeconds how long the blip lasts; 0 for no blip (default 5)
 * @param edgePort the edge's port; 0 picks a free one (default 0)
 * @param config the edge configuration to start from (default {@code examples/shiplane.yaml})
 * @param report where to write the HTML report (default {@code demo-report.html})
 * @param seed the root of the fleet's randomness and Shiplane's (default 42)
 * @param callsPerSecondPerClient each client's mean call rate (default 2.25: a Free key's three
 *     clients ask for about 80 % of its limit)
 * @param trialDailyQuota the daily quota of the demo's Trial plan, small so that it runs out before
 *     the blip and {@code quota_exhausted} shows (default 60)
 * @param kinds the clients compared, in the order they run (default naive, careful, Sluice SDK)
 * @param recoveryCapacityPerSecond Shiplane's capacity while it recovers from the blip, requests/s:
 *     after the blip it stays overloaded until, {@link DemoRun#RECOVERY_SECONDS} s in a row, the
 *     requests that got past the edge's limits stayed at or under it ({@link RecoveryRule}). 0 (the
 *     default) takes the fleet's limit, the sum of its keys' burst rates, as requests/s;
 *     {@link Double#POSITIVE_INFINITY} turns the rule off (Shiplane is back when the blip ends)
 */
public record DemoSettings(
        int clients,
        int durationSeconds,
        int blipAtSeconds,
        int blipForSeconds,
        int edgePort,
        Path config,
        Path report,
        long seed,
        double callsPerSecondPerClient,
        long trialDailyQuota,
        List<ClientKind> kinds,
        double recoveryCapacityPerSecond) {

    public static final int MAX_CLIENTS = 5_000;
    public static final int MAX_DURATION_SECONDS = 3_600;

    public DemoSettings {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(report, "report");
        kinds = List.copyOf(kinds);
        if (kinds.isEmpty() || kinds.stream().distinct().count() != kinds.size()) {
            throw new IllegalArgumentException("the clients to compare must be one or more, each once: " + kinds);
        }
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new IllegalArgumentException("--clients must be 1.." + MAX_CLIENTS + ", was " + clients);
        }
        if (durationSeconds < 1 || durationSeconds > MAX_DURATION_SECONDS) {
            throw new IllegalArgumentException("--duration must be 1.." + MAX_DURATION_SECONDS + " seconds, was "
                    + durationSeconds);
        }
        if (blipForSeconds < 0) {
            throw new IllegalArgumentException("--blip-for must be >= 0 seconds, was " + blipForSeconds);
        }
        if (blipForSeconds > 0 && (blipAtSeconds < 0 || blipAtSeconds >= durationSeconds)) {
            throw new IllegalArgumentException("--blip-at must be within the run (0.." + (durationSeconds - 1)
                    + " seconds), was " + blipAtSeconds);
        }
        if (blipForSeconds > 0 && blipAtSeconds + blipForSeconds > durationSeconds) {
            throw new IllegalArgumentException("the blip (--blip-at " + blipAtSeconds + " --blip-for " + blipForSeconds
                    + ") would end at " + (blipAtSeconds + blipForSeconds) + " s, after the " + durationSeconds
                    + " s run: use --blip-for " + (durationSeconds - blipAtSeconds) + " or less, an earlier --blip-at,"
                    + " or a longer --duration");
        }
        if (edgePort < 0 || edgePort > 65_535) {
            throw new IllegalArgumentException("--port must be 0..65535, was " + edgePort);
        }
        if (!(callsPerSecondPerClient > 0) || callsPerSecondPerClient > 1_000) {
            throw new IllegalArgumentException("calls per second per client must be in (0, 1000], was "
                    + callsPerSecondPerClient);
        }
        if (!(recoveryCapacityPerSecond >= 0)) {
            throw new IllegalArgumentException("--recovery-capacity must be > 0 requests/s (or the limit, or off), was "
                    + recoveryCapacityPerSecond);
        }
        if (trialDailyQuota < 1) {
            throw new IllegalArgumentException("the Trial plan's daily quota must be >= 1, was " + trialDailyQuota);
        }
    }

    /**
     * 200 clients for 40 s per client, a 5 s blip at 20 s, free ports, {@code examples/shiplane.yaml},
     * the three clients.
     */
    public static DemoSettings defaults() {
        return new DemoSettings(200, 40, 20, 5, 0, Path.of("examples", "shiplane.yaml"), Path.of("demo-report.html"),
                42, 2.25, 60, List.of(ClientKind.values()), 0);
    }

    /** Whether this run has a blip. */
    public boolean hasBlip() {
        return blipForSeconds > 0;
    }

    public DemoSettings withClients(int n) {
        return new DemoSettings(n, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    /**
     * This run lasting {@code seconds}, with the blip moved to the middle and shortened, if need be, to end
     * with the run.
     */
    public DemoSettings withDuration(int seconds) {
        int at = seconds / 2;
        return new DemoSettings(clients, seconds, at, Math.min(blipForSeconds, Math.max(0, seconds - at)), edgePort,
                config, report, seed, callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    /**
     * This run with a blip from {@code atSeconds} lasting the default length ({@link #defaults()}: 5 s),
     * shortened to end with the run.
     */
    public DemoSettings withBlipAt(int atSeconds) {
        int defaultLength = defaults().blipForSeconds();
        return withBlip(atSeconds, Math.min(defaultLength, Math.max(1, durationSeconds - atSeconds)));
    }

    public DemoSettings withBlip(int atSeconds, int forSeconds) {
        return new DemoSettings(clients, durationSeconds, atSeconds, forSeconds, edgePort, config, report, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withoutBlip() {
        return withBlip(blipAtSeconds, 0);
    }

    public DemoSettings withEdgePort(int port) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, port, config, report, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withConfig(Path file) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, file, report, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withReport(Path file) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, file, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withSeed(long s) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, s,
                callsPerSecondPerClient, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withCallsPerSecondPerClient(double rate) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, seed,
                rate, trialDailyQuota, kinds,
                recoveryCapacityPerSecond);
    }

    public DemoSettings withTrialDailyQuota(long quota) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, seed,
                callsPerSecondPerClient, quota, kinds,
                recoveryCapacityPerSecond);
    }

    /** This run comparing {@code clientKinds}, in that order. */
    public DemoSettings withKinds(List<ClientKind> clientKinds) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, seed,
                callsPerSecondPerClient, trialDailyQuota, clientKinds,
                recoveryCapacityPerSecond);
    }

    /**
     * This run with Shiplane recovering from the blip at {@code perSecond} requests/s (0: the fleet's
     * limit; {@link Double#POSITIVE_INFINITY}: no recovery rule).
     */
    public DemoSettings withRecoveryCapacity(double perSecond) {
        return new DemoSettings(clients, durationSeconds, blipAtSeconds, blipForSeconds, edgePort, config, report, seed,
                callsPerSecondPerClient, trialDailyQuota, kinds, perSecond);
    }
}
