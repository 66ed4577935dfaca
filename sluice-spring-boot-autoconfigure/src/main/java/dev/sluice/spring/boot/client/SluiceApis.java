package dev.sluice.spring.boot.client;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.spring.boot.SluiceClientProperties;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The named APIs of {@code sluice.clients.<name>}, one SDK core each ({@link CallDriver}: its own
 * pacer, retry budget, adaptive throttle and admission queue), because one API is one provider limit
 * (SPEC §4.6). A {@code RestClient} and a {@code WebClient} of the same API share its core, so
 * together they stay under the API's limit. Thread-safe; {@link #close()} stops the cores' timers.
 */
public final class SluiceApis implements AutoCloseable {

    private final Map<String, SluiceClientProperties> apis;
    private final Map<String, CallDriver> drivers = new TreeMap<>();

    /**
     * @param apis the named APIs' settings
     * @param environment clocks, randomness and key minting of every core
     */
    public SluiceApis(Map<String, SluiceClientProperties> apis, CoreEnvironment environment) {
        this.apis = Map.copyOf(apis);
        Objects.requireNonNull(environment, "environment");
        for (Map.Entry<String, SluiceClientProperties> e : this.apis.entrySet()) {
            drivers.put(e.getKey(), CallDriver.create(config(e.getValue()), environment, null));
        }
    }

    /** The SDK settings of one API: the defaults, with its documented limit as the pacer's. */
    static ClientConfig config(SluiceClientProperties p) {
        ClientConfig config = ClientConfig.defaults();
        if (p.pacer() != null && p.pacer().rate() != null) {
            double burst = p.pacer().burst() != null ? p.pacer().burst() : p.pacer().rate();
            config = config.withPacer(PacerConfig.documented(p.pacer().rate(), burst));
        }
        return config;
    }

    /** The configured API names. */
    public Set<String> names() {
        return drivers.keySet();
    }

    /**
     * The settings of API {@code name}.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public SluiceClientProperties properties(String name) {
        driver(name);
        return apis.get(name);
    }

    /**
     * The core of API {@code name}.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public CallDriver driver(String name) {
        CallDriver d = drivers.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no sluice.clients." + name + " is configured; configured: " + names());
        }
        return d;
    }

    /** The SDK counters of API {@code name}. */
    public ClientStats stats(String name) {
        return driver(name).stats();
    }

    @Override
    public void close() {
        drivers.values().forEach(CallDriver::close);
    }
}
