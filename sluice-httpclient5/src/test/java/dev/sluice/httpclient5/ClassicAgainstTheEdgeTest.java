package dev.sluice.httpclient5;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.examples.adapters.AdapterContractTest;
import java.net.URI;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/** {@link SluiceExecChainHandler} in a real classic HttpClient 5 against the real edge over loopback. */
class ClassicAgainstTheEdgeTest extends AdapterContractTest {

    @Override
    protected AdapterClient client(ClientConfig config, CoreEnvironment environment) {
        SluiceExecChainHandler sluice = SluiceExecChainHandler.create(CallDriver.create(config, environment, null),
                environment.time(), ResponseAnswers.standard());
        CloseableHttpClient http = SluiceExecChainHandler.install(HttpClients.custom(), sluice).build();
        return new AdapterClient() {
            @Override
            public Reply send(String method, URI uri, String apiKey, String body) throws Exception {
                ClassicRequestBuilder b = ClassicRequestBuilder.create(method).setUri(uri)
                        .addHeader("Authorization", "Bearer " + apiKey);
                if (body != null) {
                    b.setEntity(new StringEntity(body, ContentType.APPLICATION_JSON));
                }
                return http.execute(b.build(), r -> new Reply(r.getCode(),
                        r.getEntity() == null ? "" : EntityUtils.toString(r.getEntity())));
            }

            @Override
            public void close() throws java.io.IOException {
                sluice.close();
                http.close();
            }
        };
    }
}
