package dev.sluice.spring.boot;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.client.transport.TransportFailures;
import dev.sluice.examples.adapters.AdapterContractTest;
import dev.sluice.spring.boot.client.SluiceExchangeFilterFunction;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * {@link SluiceExchangeFilterFunction} in a real {@code WebClient} (Reactor Netty connector) against
 * the real edge over loopback (the adapters' five scenarios). The exchange is read with
 * {@code exchangeToMono}, which hands every status back, as the other adapters' callers do.
 */
class WebClientAgainstTheEdgeTest extends AdapterContractTest {

    @Override
    protected AdapterClient client(ClientConfig config, CoreEnvironment environment) {
        SluiceExchangeFilterFunction sluice = new SluiceExchangeFilterFunction(
                CallDriver.create(config, environment, null), environment.time(), ResponseAnswers.standard(), null);
        WebClient http = WebClient.builder().filter(sluice).build();
        return new AdapterClient() {
            @Override
            public Reply send(String method, URI uri, String apiKey, String body) throws Exception {
                WebClient.RequestBodySpec spec = http.method(HttpMethod.valueOf(method)).uri(uri)
                        .header("Authorization", "Bearer " + apiKey);
                if (body != null) {
                    spec.contentType(MediaType.APPLICATION_JSON).bodyValue(body);
                }
                try {
                    return spec.exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")
                            .map(b -> new Reply(r.statusCode().value(), b))).toFuture().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw (Exception) TransportFailures.unwrap(e);
                }
            }

            @Override
            public void close() {
                sluice.driver().close();
            }
        };
    }
}
