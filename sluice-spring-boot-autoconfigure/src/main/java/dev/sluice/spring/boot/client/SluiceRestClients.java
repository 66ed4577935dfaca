package dev.sluice.spring.boot.client;

import dev.sluice.client.core.ClientStats;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.spring.boot.SluiceClientProperties;
import dev.sluice.time.TimeSource;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.web.client.RestClient;

/**
 * The {@code RestClient} builders of the named APIs of {@code sluice.clients.<name>}, each sending
 * through its API's SDK core ({@link SluiceApis}: its own pacer, budget, throttle and queue).
 *
 * <pre>{@code
 * RestClient shiplane = sluiceRestClients.builder("shiplane").build();   // base-url, pacing, retries
 * }</pre>
 * Thread-safe. The cores belong to {@link SluiceApis}.
 */
public final class SluiceRestClients {

    private final SluiceApis apis;
    private final Map<String, SluiceClientHttpRequestInterceptor> interceptors = new TreeMap<>();
    private final ObjectProvider<RestClient.Builder> builders;

    /**
     * @param apis the named APIs and their cores
     * @param builders the application's {@code RestClient.Builder} (each builder is a clone of it);
     *     when there is none, {@code RestClient.builder()}
     * @param time the wall clock error answers are read with (the cores' own)
     */
    public SluiceRestClients(SluiceApis apis, ObjectProvider<RestClient.Builder> builders, TimeSource time) {
        this.apis = apis;
        this.builders = builders;
        for (String name : apis.names()) {
            interceptors.put(name, new SluiceClientHttpRequestInterceptor(apis.driver(name), time,
                    ResponseAnswers.standard(), apis.properties(name).deadline()));
        }
    }

    /** The configured API names. */
    public Set<String> names() {
        return interceptors.keySet();
    }

    /**
     * A new builder (from the application's auto-configured {@code RestClient.Builder}) with the API's
     * base URL and its Sluice interceptor.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public RestClient.Builder builder(String name) {
        RestClient.Builder b = builders.getIfAvailable(RestClient::builder).clone();
        customizer(name).customize(b);
        return b;
    }

    /** The customizer that points a builder at API {@code name}: its base URL and its interceptor. */
    public RestClientCustomizer customizer(String name) {
        SluiceClientHttpRequestInterceptor interceptor = interceptor(name);
        SluiceClientProperties p = apis.properties(name);
        return b -> {
            if (p.baseUrl() != null) {
                b.baseUrl(p.baseUrl().toString());
            }
            b.requestInterceptor(interceptor);
        };
    }

    /**
     * The interceptor of API {@code name}.
     *
     * @throws IllegalArgumentException if {@code sluice.clients.<name>} is not configured
     */
    public SluiceClientHttpRequestInterceptor interceptor(String name) {
        SluiceClientHttpRequestInterceptor i = interceptors.get(name);
        if (i == null) {
            throw new IllegalArgumentException("no sluice.clients." + name + " is configured; configured: " + names());
        }
        return i;
    }

    /** The SDK counters of API {@code name} (shared with its {@code WebClient}s). */
    public ClientStats stats(String name) {
        return apis.stats(name);
    }
}
