package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.client.PacerConfig;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.redis.RedisTestSupport;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's two lines that put an SDK client on the shared Redis bucket and budget, run as written. */
@ExtendWith(RedisTestSupport.class)
class ReadmeSharedLimitsExampleTest {

    @Test
    void theTwoLinesOfTheReadmeShareTheProvidersLimitThroughRedis() throws Exception {
        String prefix = RedisTestSupport.newPrefix("sdk-readme");
        String limitName = "api.example.com-" + UUID.randomUUID();
        try (ProviderStub provider = new ProviderStub(50, 1)) {
            // --- README ---
            RedisClientLimits shared = RedisClientLimits.open(RedisTestSupport.URI, limitName,
                    SharedLimitsConfig.builder().processCount(3).keyPrefix(prefix).build());
            SluiceHttpClient client = SluiceHttpClient.builder().pacer(PacerConfig.documented(50, 50))
                    .tokenBucketStore(shared.tokenBucket()).retryBudgetStore(shared.retryBudget()).build();
            // --- end ---
            try (shared; client) {
                HttpResponse<Void> res = client.send(HttpRequest.newBuilder(provider.uri("/limited")).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertThat(res.statusCode()).isEqualTo(200);
                // on a cold, loaded JVM the first script call can outlast the SDK's bounded wait: that call
                // goes on the local share and the endpoint's probe brings Redis back; the next one is on Redis
                await().atMost(Duration.ofSeconds(10)).until(() -> shared.tokenBucket().onRedis());
                assertThat(client.send(HttpRequest.newBuilder(provider.uri("/limited")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
                // the pacer's 90 % of the documented 50/s and of its burst of 50 (SPEC §4.6) is the
                // shared bucket's (in µtok)
                // the script's reply may come after the SDK's bounded wait on a loaded machine (the call then
                // went on the local share); the script has still run on Redis, so its write is awaited
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                        RedisTestSupport.admin().hmget(prefix + "{" + limitName + "}:bucket", "rate", "cap"))
                        .extracting(kv -> kv.getValueOrElse(null)).containsExactly("45000000", "45000000"));
                assertThat(RedisTestSupport.keys(prefix)).containsExactlyInAnyOrder(
                        prefix + "{" + limitName + "}:bucket", prefix + "{" + limitName + "}:budget");
            }
        } finally {
            RedisTestSupport.deletePrefix(prefix);
        }
    }
}
