package dev.sluice.spring.boot.client;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.spring.boot.SluiceClientProperties;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.web.client.RestClient;

/**
 * One SDK core per named API of {@code sluice.clients.<name>} (its own pacer, budget, throttle and
 * queue: one provider limit each), and the {@code RestClient} builders that send through it.
 *
 * <pre>{@code
 * RestClient shiplane = sluiceRestClients.builder("shiplane").build();   // base-url, pacing, retries
 * }</pre>
 * Thread-safe. The cores' timers stop when the application context closes.
 */
public final class SluiceRestClients implements AutoCloseable {

    private final Map<String, SluiceClientProperties> apis;
    private final Map<String, SluiceClientHttpRequestInterceptor> interceptors = new TreeMap<>();
    private final ObjectProvider<RestClient.Builder> builders;

    public SluiceRestClients(Map<String, SluiceClientProperties> apis, ObjectProvider<RestClient.Builder> builders,
            CoreEnvironment environment) {
        this.apis = Map.copyOf(apis);
        this.builders = builders;
        for (Map.Entry<String, SluiceClientProperties> e : this.apis.entrySet()) {
            SluiceClientProperties p = e.getValue();
            ClientConfig config = ClientConfig.defaults();
            if (p.pacer() != null && p.pacer().rate() != null) {
                double burst = p.pacer().burst() != null ? p.pacer().burst() : p.pacer().rate();
                config = config.withPacer(PacerConfig.documented(p.pacer().rate(), burst));
            }
            interceptors.put(e.getKey(), new SluiceClientHttpRequestInterceptor(
                    CallDriver.create(config, environment, null), environment.time(), ResponseAnswers.standard(),
                    p.deadline()));
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
        SluiceClientProperties p = apis.get(name);
        return b -> {
            if (p.baseUrl() != null) {
                b.baseUrl(p.baseUrl().toString());
            }
            b.requestInterceptor(interceptor);
        };
    }

    /** The interceptor of API {@code name}. */
    public SluiceClientHttpRequestInterceptor interceptor(String name) {
        SluiceClientHttpRequestInterceptor i = interceptors.get(name);
        if (i == null) {
            throw new IllegalArgumentException("no sluice.clients." + name + " is configured; configured: " + names());
        }
        return i;
    }

    /** The SDK counters of API {@code name}. */
    public ClientStats stats(String name) {
        return interceptor(name).driver().stats();
    }

    @Override
    public void close() {
        interceptors.values().forEach(i -> i.driver().close());
    }
}
