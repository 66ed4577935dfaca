package dev.sluice.okhttp;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.examples.adapters.AdapterContractTest;
import java.net.URI;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** {@link SluiceInterceptor} in a real OkHttp client against the real edge over loopback. */
class OkHttpAgainstTheEdgeTest extends AdapterContractTest {

    @Override
    protected AdapterClient client(ClientConfig config, CoreEnvironment environment) {
        SluiceInterceptor sluice = SluiceInterceptor.create(CallDriver.create(config, environment, null),
                environment.time(), ResponseAnswers.standard());
        OkHttpClient http = SluiceInterceptor.install(new OkHttpClient.Builder(), sluice).build();
        return new AdapterClient() {
            @Override
            public Reply send(String method, URI uri, String apiKey, String body) throws Exception {
                RequestBody payload = body == null ? null : RequestBody.create(body, MediaType.get("application/json"));
                Request request = new Request.Builder().url(uri.toString()).header("Authorization", "Bearer " + apiKey)
                        .method(method, payload).build();
                try (Response r = http.newCall(request).execute()) {
                    return new Reply(r.code(), r.body().string());
                }
            }

            @Override
            public void close() {
                sluice.close();
                http.dispatcher().executorService().shutdown();
                http.connectionPool().evictAll();
            }
        };
    }
}
