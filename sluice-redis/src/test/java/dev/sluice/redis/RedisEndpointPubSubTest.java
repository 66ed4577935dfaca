package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RedisEndpoint#connectPubSub()} against the real Redis on 127.0.0.1:6379 (the key store's change feed). */
@ExtendWith(RedisTestSupport.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedisEndpointPubSubTest {

    @Test
    void aSubscriberOnTheEndpointsClientHearsWhatItsCommandsPublish() throws Exception {
        String channel = RedisTestSupport.newPrefix("pubsub") + "changes";
        try (RedisEndpoint endpoint = RedisEndpoint.connect(RedisTestSupport.URI)) {
            RedisTestSupport.awaitUp(endpoint);
            StatefulRedisPubSubConnection<String, String> sub = endpoint.connectPubSub().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            try {
                LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String from, String message) {
                        heard.add(from + " " + message);
                    }
                });
                sub.async().subscribe(channel).get(5, TimeUnit.SECONDS);
                // PUBLISH answers the number of subscribers that received it: this one
                assertThat(endpoint.commandsIfUp().publish(channel, "abc").get(5, TimeUnit.SECONDS)).isEqualTo(1L);
                assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(channel + " abc");
            } finally {
                sub.close();
            }
        }
    }

    @Test
    void anEndpointOverACallersConnectionOpensNoOther() {
        try (StatefulRedisConnection<String, String> own = RedisTestSupport.newConnection();
                RedisEndpoint wrapped = RedisEndpoint.wrap(own, RedisEndpointConfig.of(RedisTestSupport.URI))) {
            assertThatThrownBy(wrapped::connectPubSub).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("caller's connection");
        }
    }

    @Test
    void aClosedEndpointOpensNoConnection() {
        RedisEndpoint endpoint = RedisEndpoint.connect("redis://127.0.0.1:1");
        endpoint.close();
        assertThatThrownBy(endpoint::connectPubSub).isInstanceOf(IllegalStateException.class).hasMessage("closed");
    }
}
