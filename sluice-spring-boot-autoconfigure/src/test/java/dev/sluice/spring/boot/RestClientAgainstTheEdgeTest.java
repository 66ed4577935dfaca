package dev.sluice.spring.boot;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.SluiceRetryPredicates;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.examples.adapters.AdapterContractTest;
import dev.sluice.spring.boot.client.SluiceClientHttpRequestInterceptor;
import java.net.URI;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * {@link SluiceClientHttpRequestInterceptor} in a real {@code RestClient} against the real edge over
 * loopback (the adapters' five scenarios). A 404 reaches {@code RestClient}'s status handling, so the
 * client here reads every status instead of throwing on 4xx, as the other adapters' callers do.
 */
class RestClientAgainstTheEdgeTest extends AdapterContractTest {

    @Override
    protected AdapterClient client(ClientConfig config, CoreEnvironment environment) {
        SluiceClientHttpRequestInterceptor sluice = new SluiceClientHttpRequestInterceptor(
                CallDriver.create(config, environment, null), environment.time(), ResponseAnswers.standard(), null);
        RestClient http = RestClient.builder().requestInterceptor(sluice).defaultStatusHandler(s -> true, (req, res) -> { })
                .build();
        return new AdapterClient() {
            @Override
            public Reply send(String method, URI uri, String apiKey, String body) throws Exception {
                RestClient.RequestBodySpec spec = http.method(HttpMethod.valueOf(method)).uri(uri)
                        .header("Authorization", "Bearer " + apiKey);
                if (body != null) {
                    spec.contentType(MediaType.APPLICATION_JSON).body(body);
                }
                try {
                    ResponseEntity<String> r = spec.retrieve().toEntity(String.class);
                    return new Reply(r.getStatusCode().value(), r.getBody() == null ? "" : r.getBody());
                } catch (ResourceAccessException e) {
                    throw SluiceRetryPredicates.sluiceCause(e).map(Exception.class::cast).orElse(e);
                }
            }

            @Override
            public void close() {
                sluice.driver().close();
            }
        };
    }
}
