package dev.sluice.edge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.time.ManualTimeSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DashboardTest {

    private static final String QUOTES = "GET /v1/quotes";

    private final ManualTimeSource time = new ManualTimeSource(Instant.parse("2025-06-01T12:00:00Z"), 0);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void refusalsOfAKeyCountForItsIdAndAdmissionsDoNot() {
        Dashboard d = new Dashboard(time, registry, StoreConfig.MEMORY);
        for (int i = 0; i < 20; i++) {
            d.decision(new DecisionRecord(QUOTES, "free", DecisionOutcome.ALLOWED, false));
        }
        for (int i = 0; i < 10; i++) {
            d.decision(new DecisionRecord(QUOTES, "free", DecisionOutcome.RATE_LIMITED, false, "k0123456789ab"));
        }
        d.decision(new DecisionRecord(QUOTES, "free", DecisionOutcome.SHED, false, "k0123456789ab"));
        d.decision(new DecisionRecord(QUOTES, "none", DecisionOutcome.UNAUTHENTICATED, false));
        time.advance(Duration.ofSeconds(1));

        JsonNode s = d.snapshot();
        assertThat(s.get("at").asText()).isEqualTo("2025-06-01T12:00:01Z");
        assertThat(s.get("window_seconds").asInt()).isEqualTo(10);
        JsonNode free = s.get("series").get(0);
        assertThat(free.get("plan").asText()).isEqualTo("free");
        assertThat(free.get("per_second").get("admitted").asDouble()).isEqualTo(2.0);
        assertThat(free.get("per_second").get("status_429").asDouble()).isEqualTo(1.0);
        assertThat(free.get("per_second").get("shed").asDouble()).isEqualTo(0.1);
        assertThat(free.get("total").get("status_429").asLong()).isEqualTo(10);
        assertThat(s.get("series").get(1).get("plan").asText()).isEqualTo("none");
        assertThat(s.get("series").get(1).get("total").get("other").asLong()).isEqualTo(1);

        JsonNode top = s.get("top_rejected_keys");
        assertThat(top).hasSize(1);
        assertThat(top.get(0).get("key_id").asText()).isEqualTo("k0123456789ab");
        assertThat(top.get(0).get("rejections").asLong()).isEqualTo(11);
        assertThat(top.get(0).get("status_429").asLong()).isEqualTo(10);
        assertThat(top.get(0).get("status_503").asLong()).isEqualTo(1);
        assertThat(s.get("store").get("kind").asText()).isEqualTo("memory");
    }

    @Test
    void redisUpOrDownAndTheFallbackShareComeFromTheStoresMeters() {
        StoreConfig.Redis redis = new StoreConfig.Redis("redis://user:secret@127.0.0.1:6379", 4,
                Duration.ofMillis(50), FailureMode.FAIL_OPEN_DEGRADED, Duration.ZERO, Optional.empty(), "sluice:",
                Duration.ofSeconds(1));
        AtomicInteger up = new AtomicInteger(1);
        AtomicLong byRedis = new AtomicLong(90);
        AtomicLong byFallback = new AtomicLong(10);
        Gauge.builder("sluice.edge.store.redis.up", up, AtomicInteger::get).register(registry);
        FunctionCounter.builder("sluice.edge.store.decisions", byRedis, AtomicLong::get)
                .tag("answered_by", "redis").register(registry);
        FunctionCounter.builder("sluice.edge.store.decisions", byFallback, AtomicLong::get)
                .tag("answered_by", "fallback").register(registry);
        Dashboard d = new Dashboard(time, registry, redis);

        JsonNode first = d.snapshot().get("store");
        assertThat(first.get("kind").asText()).isEqualTo("redis");
        assertThat(first.get("url").asText()).doesNotContain("secret");
        assertThat(first.get("up").asBoolean()).isTrue();
        assertThat(first.get("replicas").asInt()).isEqualTo(4);
        assertThat(first.get("local_share").asDouble()).isEqualTo(0.25);
        assertThat(first.get("failure_mode").asText()).isEqualTo("fail-open-degraded");
        assertThat(first.get("fallback_share").asDouble()).isEqualTo(0.1); // since the start: 10 of 100
        assertThat(first.get("decisions_per_second").isNull()).isTrue();

        // Redis goes down: the next 5 s, 50 decisions, all from the local share
        up.set(0);
        byFallback.addAndGet(50);
        time.advance(Duration.ofSeconds(5));
        JsonNode down = d.snapshot().get("store");
        assertThat(down.get("up").asBoolean()).isFalse();
        assertThat(down.get("fallback_share").asDouble()).isEqualTo(1.0);
        assertThat(down.get("decisions_per_second").asDouble()).isEqualTo(10.0);

        // 20 s later the window no longer reaches back to the outage
        up.set(1);
        time.advance(Duration.ofSeconds(10));
        d.snapshot();
        byRedis.addAndGet(100);
        time.advance(Duration.ofSeconds(10));
        JsonNode back = d.snapshot().get("store");
        assertThat(back.get("up").asBoolean()).isTrue();
        assertThat(back.get("fallback_share").asDouble()).isZero();
    }

    @Test
    void aRedisStoreWithoutItsMetersIsUnknownNotUp() {
        StoreConfig.Redis redis = new StoreConfig.Redis("redis://127.0.0.1:6379", 1, Duration.ofMillis(50),
                FailureMode.FAIL_CLOSED, Duration.ZERO, Optional.empty(), "sluice:", Duration.ofSeconds(1));
        JsonNode store = new Dashboard(time, registry, redis).snapshot().get("store");
        assertThat(store.get("up").isNull()).isTrue();
        assertThat(store.get("fallback_share").isNull()).isTrue();
    }

    @Test
    void theLatestSoftLimitWarningsAreKeptNewestFirstAndPassedOn() {
        Dashboard d = new Dashboard(time, registry, StoreConfig.MEMORY);
        List<QuotaWarning> passedOn = new ArrayList<>();
        var sink = d.recording(passedOn::add);
        for (int i = 0; i < Dashboard.RECENT_WARNINGS + 5; i++) {
            sink.onQuotaWarning(new QuotaWarning("k00000000000" + (i % 10), "free", "daily", 8_000 + i, 10_000,
                    Instant.parse("2025-06-02T00:00:00Z"), time.now().plusSeconds(i)));
        }
        assertThat(passedOn).hasSize(Dashboard.RECENT_WARNINGS + 5);
        JsonNode w = d.snapshot().get("quota_warnings");
        assertThat(w.get("total").asInt()).isEqualTo(Dashboard.RECENT_WARNINGS + 5);
        assertThat(w.get("recent")).hasSize(Dashboard.RECENT_WARNINGS);
        assertThat(w.get("recent").get(0).get("used").asLong()).isEqualTo(8_000 + Dashboard.RECENT_WARNINGS + 4);
        assertThat(w.get("recent").get(0).get("window_reset_at").asText()).isEqualTo("2025-06-02T00:00:00Z");
    }
}
