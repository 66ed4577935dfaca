package dev.sluice.spring.boot.client;

import dev.sluice.client.core.ClientStats;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.spring.boot.SluiceClientProperties;
import dev.sluice.time.TimeSource;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The {@code WebClient} builders of the named APIs of {@code sluice.clients.<name>}, each sending
 * through its API's SDK core ({@link SluiceApis}, shared with the API's {@code RestClient}s).
 *
 * <pre>{@code
 * WebClient shiplane = sluiceWebClients.builder("shiplane").build();   // base-url, pacing, retries
 * }</pre>
 * Thread-safe.
 */
public final class SluiceWebClients {

    private final SluiceApis apis;
    private final Map<String, SluiceExchangeFilterFunction> filters = new TreeMap<>();
    private final ObjectProvider<WebClient.Builder> builders;

    /**
     * @param apis the named APIs and their cores
     * @param builders the application's {@code WebClient.Builder} (each builder is a clone of it);
     *     when there is none, {@code WebClient.builder()}
     * @param time the wall clock error answers are read with (the cores' own)
     */
    public SluiceWebClients(SluiceApis apis, ObjectProvider<WebClient.Builder> builders, TimeSource time) {
        this.apis = apis;
        this.builders = builders;
        for (String name : apis.names()) {
            filters.put(name, new SluiceExchangeFilterFunction(apis.driver(name), time, ResponseAnswers.standard(),
                    apis.properties(name).deadline()));
        }
    }

    /** The configured API names. */
    public Set<String> names() {
        return filters.keySet();
    }

    /**
     * A new builder (a clone of the application's auto-configured {@code WebClient.Builder}) with
     * the API's base URL and its Sluice filter.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public WebClient.Builder builder(String name) {
        WebClient.Builder b = builders.getIfAvailable(WebClient::builder).clone();
        customizer(name).customize(b);
        return b;
    }

    /**
     * The customizer that points a builder at API {@code name}: its base URL and its filter.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public WebClientCustomizer customizer(String name) {
        SluiceExchangeFilterFunction filter = filter(name);
        SluiceClientProperties p = apis.properties(name);
        return b -> {
            if (p.baseUrl() != null) {
                b.baseUrl(p.baseUrl().toString());
            }
            b.filter(filter);
        };
    }

    /**
     * The filter of API {@code name}.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public SluiceExchangeFilterFunction filter(String name) {
        SluiceExchangeFilterFunction f = filters.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no sluice.clients." + name + " is configured; configured: " + names());
        }
        return f;
    }

    /** The SDK counters of API {@code name} (shared with its {@code RestClient}s). */
    public ClientStats stats(String name) {
        return apis.stats(name);
    }
}
