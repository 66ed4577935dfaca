package dev.sluice.httpclient5;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.examples.adapters.AdapterContractTest;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.io.CloseMode;

/** {@link SluiceAsyncExecChainHandler} in a real async HttpClient 5 against the real edge over loopback. */
class AsyncAgainstTheEdgeTest extends AdapterContractTest {

    @Override
    protected AdapterClient client(ClientConfig config, CoreEnvironment environment) {
        SluiceAsyncExecChainHandler sluice = SluiceAsyncExecChainHandler.create(
                CallDriver.create(config, environment, null), environment.time(), ResponseAnswers.standard());
        CloseableHttpAsyncClient http = SluiceAsyncExecChainHandler.install(HttpAsyncClients.custom(), sluice).build();
        http.start();
        return new AdapterClient() {
            @Override
            public Reply send(String method, URI uri, String apiKey, String body) throws Exception {
                SimpleRequestBuilder b = SimpleRequestBuilder.create(method).setUri(uri)
                        .addHeader("Authorization", "Bearer " + apiKey);
                if (body != null) {
                    b.setBody(body, ContentType.APPLICATION_JSON);
                }
                SimpleHttpRequest request = b.build();
                try {
                    SimpleHttpResponse r = http.execute(request, null).get(30, TimeUnit.SECONDS);
                    return new Reply(r.getCode(), r.getBodyText() == null ? "" : r.getBodyText());
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception c ? c : e;
                }
            }

            @Override
            public void close() {
                sluice.close();
                http.close(CloseMode.GRACEFUL);
            }
        };
    }
}
