package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.TcpProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Without Redis, each of the N processes paces alone at {@code rate/N} (SPEC §4.8, §3.14), and comes
 * back to the shared bucket by itself when Redis answers again.
 */
class SharedLimitsFallbackTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final String PREFIX = RedisTestSupport.newPrefix("sdk-fallback");

    @AfterAll
    static void cleanUp() {
        RedisTestSupport.deletePrefix(PREFIX);
    }

    private static SharedLimitsConfig threeProcesses() {
        return SharedLimitsConfig.builder().keyPrefix(PREFIX).processCount(3).build();
    }

    /** An endpoint at a port nothing listens on: it starts down and stays down. */
    private static RedisEndpoint unreachable() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        return RedisEndpoint.connect("redis://127.0.0.1:" + port);
    }

    @Test
    void withoutRedisAProcessPacesAtItsShareOfTheRateAndBurst() throws IOException {
        try (RedisEndpoint down = unreachable()) {
            RedisTokenBucketStore b = new RedisTokenBucketStore(down, "api.example.com", threeProcesses());
            b.configure(45, 30, 0); // the shared 45/s, burst 30: this process's share is 15/s, burst 10
            for (int i = 0; i < 10; i++) {
                assertThat(b.tryAcquire(1, 0)).isZero();
            }
            assertThat(b.tryAcquire(1, 0)).isEqualTo(66_666_667L); // ceil(1 s / 15)
            assertThat(b.onRedis()).isFalse();
            assertThat(b.stats().localAnswers()).isEqualTo(11);
            assertThat(b.stats().redisCalls()).isZero();
            assertThat(b.stats().fallbackPeriods()).isEqualTo(1);

            b.clamp(6, SECOND); // the provider said r=6 to all three: this process keeps 2
            assertThat(b.tryAcquire(1, SECOND)).isZero();
            assertThat(b.tryAcquire(1, SECOND)).isZero();
            assertThat(b.tryAcquire(1, SECOND)).isPositive();
            assertThat(b.stats().unsentWrites()).isEqualTo(1);

            b.drainAndPause(5 * SECOND, 2 * SECOND); // a 429 with Retry-After: 3
            assertThat(b.tryAcquire(1, 2 * SECOND)).isGreaterThanOrEqualTo(3 * SECOND);
        }
    }

    @Test
    void withoutRedisACostAboveTheLocalShareWaitsForItInsteadOfFailing() throws IOException {
        try (RedisEndpoint down = unreachable()) {
            RedisTokenBucketStore b = new RedisTokenBucketStore(down, "api.example.com", threeProcesses());
            b.configure(45, 30, 0);
            assertThat(b.tryAcquire(20, 0)).as("20 fits the shared 30, not the local 10").isEqualTo(1_333_333_334L);
            assertThatThrownBy(() -> b.tryAcquire(31, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void withoutRedisAProcessThatKnowsNoLimitStillHonoursA429() throws IOException {
        try (RedisEndpoint down = unreachable()) {
            RedisTokenBucketStore b = new RedisTokenBucketStore(down, "api.example.com", threeProcesses());
            for (int i = 0; i < 100; i++) {
                assertThat(b.tryAcquire(1, 0)).isZero();
            }
            b.drainAndPause(2 * SECOND, 0);
            assertThat(b.tryAcquire(1, SECOND)).isEqualTo(SECOND);
        }
    }

    @Test
    void withoutRedisTheRetryBudgetFloorIsTheProcessShare() throws IOException {
        try (RedisEndpoint down = unreachable()) {
            RedisRetryBudgetStore budget = new RedisRetryBudgetStore(down, "api.example.com", threeProcesses());
            budget.recordRequest(0);
            int granted = 0;
            while (budget.tryAcquireRetry(0) && granted < 100) {
                granted++;
            }
            assertThat(granted).as("the spread floor: 2 in any 5 s").isEqualTo(2);
            while (budget.tryAcquireRetry(5 * SECOND) && granted < 100) {
                granted++;
            }
            assertThat(granted).as("ceil(10 / 3) of the default floor of 10 a minute").isEqualTo(4);
            assertThat(budget.tryAcquireRetry(10 * SECOND)).as("the minute's floor is spent").isFalse();
            for (int i = 0; i < 100; i++) {
                budget.recordRequest(10 * SECOND);
            }
            assertThat(budget.tryAcquireRetry(10 * SECOND)).as("10 %% of 101 own requests: 10.1 > 4 taken").isTrue();
            assertThat(budget.stats().localAnswers()).isEqualTo(8);
        }
    }

    @Test
    @ExtendWith(RedisTestSupport.class)
    void aStoreThatLostRedisReturnsToItByItselfWhenItAnswersAgain() throws IOException {
        try (TcpProxy proxy = new TcpProxy(RedisTestSupport.PORT);
                RedisEndpoint endpoint = RedisEndpoint.connect(RedisEndpointConfig.of(proxy.uri())
                        .withProbe(Duration.ofMillis(50), Duration.ofMillis(100)))) {
            RedisTestSupport.awaitUp(endpoint);
            RedisTokenBucketStore b = new RedisTokenBucketStore(endpoint, "api-" + UUID.randomUUID(), threeProcesses());
            b.configure(10_000, 10_000, System.nanoTime());
            assertThat(b.tryAcquire(1, System.nanoTime())).isZero();
            assertThat(b.onRedis()).isTrue();

            proxy.stop();
            RedisTestSupport.await("answered locally once redis is gone", Duration.ofSeconds(5), () -> {
                b.tryAcquire(1, System.nanoTime());
                return !b.onRedis();
            });
            long local = b.stats().localAnswers();
            assertThat(local).isPositive();

            proxy.start();
            RedisTestSupport.await("back on redis without a restart", Duration.ofSeconds(10), () -> {
                b.tryAcquire(1, System.nanoTime());
                return b.onRedis();
            });
            assertThat(b.stats().fallbackPeriods()).isEqualTo(1);
            assertThat(endpoint.stats().up()).isTrue();
        }
    }
}
