package dev.sluice.examples.shiplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The Java example of README.md, as written there. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleBuysOneLabelAndThenBlips() throws Exception {
        long created;
        HttpResponse<String> label;
        HttpResponse<String> blipped;
        try (ShiplaneServer shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0))) {
            HttpRequest buy = HttpRequest.newBuilder(URI.create(shiplane.baseUri() + "/v1/labels"))
                    .header("Idempotency-Key", "order-1001")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"weight_g\":1200}")).build();
            label = HttpClient.newHttpClient().send(buy, HttpResponse.BodyHandlers.ofString());
            shiplane.blip(true);
            blipped = HttpClient.newHttpClient().send(buy, HttpResponse.BodyHandlers.ofString());
            created = shiplane.stats().labelsCreated();
        }

        assertThat(label.statusCode()).isEqualTo(201);
        assertThat(label.body()).startsWith("{\"label_id\":\"lbl_00000001\",\"tracking_number\":\"SHP");
        assertThat(blipped.statusCode()).isEqualTo(503);
        assertThat(created).isEqualTo(1);
    }
}
