package dev.sluice.client.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.http.ReplayServer.Reply;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import dev.sluice.time.ManualTimeSource;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class UsageSeedTest {

    private static final HttpClient JDK = HttpClient.newHttpClient();

    @Test
    void thePacerStartsFromTheUsageEndpointBeforeTheFirstCall() throws Exception {
        // SPEC §3.6 body for a Free key at 18:00 UTC: burst 20 per 2 s with 7 left, daily 2,310 left
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        String usage = """
                {"plan":"free","limits":[{"name":"burst","q":20,"w":2,"r":7},
                 {"name":"daily","q":10000,"w":86400,"r":2310,"reset_at":"2026-12-01T00:00:00Z"}]}""";
        try (ReplayServer server = new ReplayServer(time).then(Reply.of(200, usage, "Content-Type", "application/json",
                "Cache-Control", "no-store", "Date", "Mon, 30 Nov 2026 18:00:00 GMT"));
                DefaultSluiceHttpClient client = (DefaultSluiceHttpClient) SluiceHttpClient.builder().httpClient(JDK)
                        .time(time).scheduler(new ManualScheduler(time)).build()) {
            client.seedFromUsage(HttpRequest.newBuilder(server.uri("/v1/usage")).header("Authorization", "Bearer sk_test").build())
                    .get(10, TimeUnit.SECONDS);
            var pacer = client.core().pacer();
            assertThat(pacer.effectivePerSecond(time.nanoTime())).isCloseTo(9.0, within(1e-9)); // 90 % of 20 / 2 s
            assertThat(pacer.capacity()).isEqualTo(20.0);
            assertThat(pacer.available(time.nanoTime())).isEqualTo(7.0);
            assertThat(client.stats().attempts()).as("the usage call is not a counted request").isZero();
            assertThat(server.received.get(0).header("Idempotency-Key")).isNull();
        }
    }

    @Test
    void aUsageEndpointThatFailsFailsTheSeedWithAnIoError() throws Exception {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        try (ReplayServer server = new ReplayServer(time).then(Reply.of(401, "{}"));
                SluiceHttpClient client = SluiceHttpClient.builder().httpClient(JDK).time(time)
                        .scheduler(new ManualScheduler(time)).build()) {
            try {
                client.seedFromUsage(HttpRequest.newBuilder(server.uri("/v1/usage")).build()).get(10, TimeUnit.SECONDS);
                throw new AssertionError("expected a failure");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(java.io.IOException.class).hasMessageContaining("401");
            }
        }
    }
}
