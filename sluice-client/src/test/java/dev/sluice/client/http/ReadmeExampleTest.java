package dev.sluice.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientErrorException;
import dev.sluice.client.CostExceedsBurstException;
import dev.sluice.client.DeadlineExceededException;
import dev.sluice.client.IdempotencyConflictException;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ServerErrorException;
import dev.sluice.client.ShedException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.SluiceResponse;
import dev.sluice.client.TransportException;
import dev.sluice.client.http.ReplayServer.Reply;
import dev.sluice.time.TimeSource;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's example, run as written against a loopback server. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRuns() throws Exception {
        try (ReplayServer server = new ReplayServer(TimeSource.system())
                .then(Reply.of(201, "{\"label_id\":\"lbl_77120\"}", "Content-Type", "application/json"))) {
            URI endpoint = server.uri("/v1/labels");
            String key = "sk_test";
            HttpResponse<String> label = null;
            // --- README ---
            try (SluiceHttpClient client = SluiceHttpClient.builder()
                    .pacer(PacerConfig.documented(10, 20))
                    .build()) {
                HttpRequest req = HttpRequest.newBuilder(endpoint)
                        .header("Authorization", "Bearer " + key)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_4410\"}")).build();
                label = client.send(req, HttpResponse.BodyHandlers.ofString(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(10)));
                if (label instanceof SluiceResponse<?> r) {
                    System.out.println(r.attempts() + " attempts, waited " + r.waited());
                }
            } catch (QuotaExceededException e) {
                throw new AssertionError(e);
            } catch (RateLimitedException e) {
                throw new AssertionError(e);
            } catch (OverloadedException e) {
                throw new AssertionError(e);
            } catch (LocallyThrottledException e) {
                throw new AssertionError(e);
            } catch (DeadlineExceededException e) {
                throw new AssertionError(e);
            } catch (ShedException e) {
                throw new AssertionError(e);
            } catch (TransportException e) {
                throw new AssertionError(e);
            } catch (IdempotencyConflictException e) {
                throw new AssertionError(e);
            } catch (CostExceedsBurstException e) {
                throw new AssertionError(e);
            } catch (ClientErrorException | ServerErrorException e) {
                throw new AssertionError(e);
            } catch (RetryBudgetExhaustedException e) {
                throw new AssertionError(e);
            }
            // --- end ---
            assertThat(label.statusCode()).isEqualTo(201);
            assertThat(((SluiceResponse<String>) label).attempts()).isEqualTo(1);
            assertThat(label.body()).contains("lbl_77120");
            assertThat(server.received.get(0).header("Idempotency-Key")).matches("[0-9a-f-]{36}");
            assertThat(server.received.get(0).header("Authorization")).isEqualTo("Bearer sk_test");
        }
    }
}
