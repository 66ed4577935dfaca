package dev.sluice.redis.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.internal.LuaScript;
import dev.sluice.time.ManualTimeSource;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the Redis store does beyond the shared contract: atomicity under load, keys, TTLs, scripts, deny cache. */
@ExtendWith(RedisTestSupport.class)
class RedisLimiterStoreTest {

    /** SPEC §2.1's Free plan. */
    private static final Plan FREE = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
    /** Five per hour: nothing refills during a test, on any clock. */
    private static final Plan FIVE = Plan.of("five", BurstPolicy.of("burst", 5, 3_600), QuotaPolicy.daily("daily", 1_000));

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final String prefix = RedisTestSupport.newPrefix("store");
    private final List<RedisLimiterStore> opened = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        opened.forEach(RedisLimiterStore::close);
        RedisTestSupport.deletePrefix(prefix);
    }

    private RedisLimiterStore store(RedisLimiterConfig.Builder config) {
        RedisLimiterStore s = new RedisLimiterStore(RedisTestSupport.endpoint(), config.keyPrefix(prefix).build());
        opened.add(s);
        return s;
    }

    /** Test mode: the script's clock is the fake clock. */
    private RedisLimiterStore testClockStore() {
        return store(RedisLimiterConfig.builder().scriptTime(time).localTime(time).decisionTimeout(Duration.ofSeconds(5)));
    }

    /** Production mode: the script reads the server's TIME. */
    private RedisLimiterStore serverClockStore() {
        return store(RedisLimiterConfig.builder().decisionTimeout(Duration.ofSeconds(5)));
    }

    // ------------------------------------------------------------------------- atomicity

    @Test
    void tenThreadsAtOneInstantAdmitExactlyTheLimitOfFive() throws Exception {
        assertThat(admittedBySyncThreads(testClockStore(), "sk_hot", 10, 50)).isEqualTo(5);
    }

    @Test
    void tenThreadsOnTheServerClockAdmitExactlyTheLimitOfFive() throws Exception {
        assertThat(admittedBySyncThreads(serverClockStore(), "sk_hot", 10, 50)).isEqualTo(5);
    }

    @Test
    void fiveHundredPipelinedDecisionsOnOneKeyAdmitExactlyFive() {
        RedisLimiterStore store = serverClockStore();
        List<CompletableFuture<Decision>> all = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            all.add(store.decideAsync("sk_hot", FIVE, Costs.ONE).toCompletableFuture());
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();

        assertThat(all.stream().filter(f -> f.join() instanceof Allowed).count()).isEqualTo(5);
        assertThat(store.usage("sk_hot", FIVE)).extracting(PolicyState::used).containsExactly(5L, 5L);
    }

    private static int admittedBySyncThreads(RedisLimiterStore store, String key, int threads, int callsEach)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int admitted = 0;
                    for (int i = 0; i < callsEach; i++) {
                        if (store.decide(key, FIVE, Costs.ONE) instanceof Allowed) {
                            admitted++;
                        }
                    }
                    return admitted;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    // -------------------------------------------------------------------------------- R16

    @Test
    void r16EveryKeyTheStoreWroteHasAnExpiryAfterEveryOperation() {
        RedisLimiterStore store = testClockStore();
        SplittableRandom random = new SplittableRandom(16);
        List<java.util.Map.Entry<String, Allowed>> charges = new ArrayList<>();
        Plan monthly = Plan.of("m", BurstPolicy.of("burst", 7, 3), QuotaPolicy.monthly("monthly", 50, 31));
        for (int step = 0; step < 300; step++) {
            time.advance(Duration.ofMillis(random.nextInt(0, 400)));
            String key = "k" + random.nextInt(4);
            Plan plan = random.nextBoolean() ? FREE : monthly;
            int op = random.nextInt(10);
            if (op < 7) {
                if (store.decide(key, plan, Costs.requests(random.nextInt(1, 8))) instanceof Allowed a) {
                    charges.add(java.util.Map.entry(key, a));
                }
            } else if (op < 9) {
                store.usage(key, plan);
            } else if (!charges.isEmpty()) {
                var charge = charges.remove(random.nextInt(charges.size()));
                store.refund(charge.getKey(), charge.getValue());
            }
            if (step % 10 == 0 && random.nextBoolean()) {
                // a key expires between two steps (the R16 report: between RENAMENX and INCR)
                List<String> keys = RedisTestSupport.keys(prefix);
                if (!keys.isEmpty()) {
                    RedisTestSupport.admin().del(keys.get(random.nextInt(keys.size())));
                }
            }
            for (String k : RedisTestSupport.keys(prefix)) {
                // -1: a key without expiry (the R16 failure); -2: it expired since the SCAN (its TTL is real
                // time while this clock is fake, and a loaded machine can take longer than 1 s per step)
                assertThat(RedisTestSupport.admin().pttl(k)).as("step " + step + ": PTTL " + k)
                        .isNotEqualTo(-1L).isNotZero();
            }
        }
        assertThat(RedisTestSupport.keys(prefix)).isNotEmpty();
    }

    @Test
    void r16AKeyThatExpiredBetweenStepsComesBackAtCountOneWithAnExpiry() {
        RedisLimiterStore store = testClockStore();
        for (int i = 0; i < 5; i++) {
            store.decide("sk_1", FREE, Costs.ONE);
        }
        List<String> keys = RedisTestSupport.keys(prefix);
        assertThat(keys).hasSize(2);
        RedisTestSupport.admin().del(keys.toArray(String[]::new)); // both expire

        Decision d = store.decide("sk_1", FREE, Costs.ONE);

        assertThat(d.states()).extracting(PolicyState::used).containsExactly(1L, 1L);
        for (String k : RedisTestSupport.keys(prefix)) {
            assertThat(RedisTestSupport.admin().pttl(k)).isPositive();
        }
    }

    @Test
    void r16AKeyFoundWithoutAnExpiryIsGivenOneByADenialOrAUsageRead() {
        RedisLimiterStore store = store(RedisLimiterConfig.builder().scriptTime(time).localTime(time)
                .denyCacheMaxAge(Duration.ZERO).decisionTimeout(Duration.ofSeconds(5)));
        assertThat(store.decide("sk_1", FREE, Costs.requests(20))).isInstanceOf(Allowed.class);
        for (String k : RedisTestSupport.keys(prefix)) {
            RedisTestSupport.admin().persist(k); // as an older writer or a hand-made key would leave it
        }

        assertThat(store.decide("sk_1", FREE, Costs.ONE)).isInstanceOf(Denied.class);
        for (String k : RedisTestSupport.keys(prefix)) {
            assertThat(RedisTestSupport.admin().pttl(k)).as(k).isPositive();
        }

        RedisTestSupport.keys(prefix).forEach(k -> RedisTestSupport.admin().persist(k));
        store.usage("sk_1", FREE);
        for (String k : RedisTestSupport.keys(prefix)) {
            assertThat(RedisTestSupport.admin().pttl(k)).as(k).isPositive();
        }
    }

    @Test
    void eachKeyLivesAtLeastUntilItsStateIsFullAgain() {
        RedisLimiterStore store = store(RedisLimiterConfig.builder().scriptTime(time).localTime(time)
                .minKeyTtl(Duration.ofMillis(1)).decisionTimeout(Duration.ofSeconds(5)));
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 60, 60), QuotaPolicy.daily("daily", 10_000));

        store.decide("sk_1", plan, Costs.requests(60)); // the bucket is empty: full again in 60 s

        String burstKey = keyEndingWith(":burst");
        String dailyKey = keyEndingWith(":daily");
        // set to 60,001 ms (+1 ms for Redis's millisecond expiry clock); read back a moment later
        assertThat(RedisTestSupport.admin().pttl(burstKey)).isBetween(59_000L, 60_001L);
        // 18:00 UTC: the daily window ends in 6 h = 21,600 s (SPEC §2.1)
        assertThat(RedisTestSupport.admin().pttl(dailyKey)).isBetween(21_599_000L, 21_600_001L);
    }

    @Test
    void aFullStateLeavesNoKeyAndAReadWritesNothing() {
        RedisLimiterStore store = testClockStore();
        Plan burstOnly = Plan.of("b", BurstPolicy.of("burst", 20, 2));

        store.usage("sk_new", FREE);
        assertThat(RedisTestSupport.keys(prefix)).isEmpty();

        Allowed charge = (Allowed) store.decide("sk_1", burstOnly, Costs.requests(4));
        assertThat(RedisTestSupport.keys(prefix)).hasSize(1);
        store.refund("sk_1", charge); // back to full: absent reads as full

        assertThat(RedisTestSupport.keys(prefix)).isEmpty();
        assertThat(store.usage("sk_1", burstOnly)).extracting(PolicyState::remaining).containsExactly(20L);
    }

    // ------------------------------------------------------------------------------- keys

    @Test
    void everyPolicyOfOneApiKeyIsInOneClusterSlot() {
        RedisLimiterStore store = testClockStore();
        Plan three = Plan.of("three", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000),
                QuotaPolicy.monthly("monthly", 100_000, 1));
        List<String> apiKeys = List.of("sk_live_1", "a{b}c", "}{", "", "{}", "%7B", "ключ");
        for (String apiKey : apiKeys) {
            store.decide(apiKey, three, Costs.ONE);
        }

        List<String> keys = RedisTestSupport.keys(prefix);
        assertThat(keys).hasSize(3 * apiKeys.size());
        for (String apiKey : apiKeys) {
            String tagged = prefix + "{" + sha256Tag(apiKey) + "}:";
            List<String> mine = keys.stream().filter(k -> k.startsWith(tagged)).toList();
            assertThat(mine).as(apiKey).hasSize(3);
            assertThat(mine.stream().map(SlotHash::getSlot).distinct()).as(apiKey).hasSize(1);
        }
    }

    @Test
    void noApiKeyAppearsInAKeyNameTheTagIsItsSha256() {
        RedisLimiterStore store = testClockStore();
        Plan withInFlight = Plan.of("c", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000),
                dev.sluice.limiter.ConcurrencyPolicy.of("inflight", 3));
        store.decide("sk_live_s3cr3t", withInFlight, Costs.ONE);

        // `echo -n sk_live_s3cr3t | sha256sum`: 84dc88e54a7e636eb5186b026cbe51b2748f...; the first 32 hex digits
        String tag = "{s84dc88e54a7e636eb5186b026cbe51b2}";
        assertThat(tag).isEqualTo("{" + sha256Tag("sk_live_s3cr3t") + "}");
        assertThat(RedisTestSupport.keys(prefix)).containsExactlyInAnyOrder(
                prefix + tag + ":b20/2r:burst", prefix + tag + ":d10000r:daily", prefix + tag + ":n3i:inflight")
                .noneMatch(k -> k.contains("sk_live") || k.contains("s3cr3t"));
    }

    @Test
    void distinctApiKeysGetDistinctTagsWithNoBraceOrColon() {
        List<String> apiKeys = List.of("", "%", "%25", "{", "%7B", "}", "%7D", "a{b}", "a%7Bb%7D", "sk_1", "sk_2");
        List<String> tags = apiKeys.stream().map(HashTags::credential).toList();

        assertThat(tags).doesNotHaveDuplicates();
        assertThat(tags).allSatisfy(t -> assertThat(t).matches("s[0-9a-f]{32}"));
    }

    /** {@code s} and the first 32 hex digits of SHA-256 of {@code apiKey}, computed here independently. */
    private static String sha256Tag(String apiKey) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(apiKey.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "s" + java.util.HexFormat.of().formatHex(d).substring(0, 32);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aChangedPolicyStartsAfreshAsInTheInMemoryStore() {
        RedisLimiterStore store = testClockStore();
        store.decide("sk_1", FREE, Costs.requests(20));
        Plan upgraded = Plan.of("pro", BurstPolicy.of("burst", 40, 2), QuotaPolicy.daily("daily", 10_000));

        Decision d = store.decide("sk_1", upgraded, Costs.ONE);

        // the burst policy changed (q 20 -> 40): a new bucket; the daily one is the same policy: carried over
        assertThat(d.states()).extracting(PolicyState::used).containsExactly(1L, 21L);
    }

    @Test
    void aBurstPolicyBeyondTheScriptsExactRangeIsRefusedNamingIt() {
        RedisLimiterStore store = testClockStore();
        // a prime q over 366 days: 2048 ticks per microsecond, a capacity of ~6.5e16 ticks > 2^51
        Plan huge = Plan.of("huge", new BurstPolicy("yearly", 10_007, 366L * 86_400, QuotaUnit.REQUESTS, null));

        assertThatThrownBy(() -> store.validate(huge))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("yearly").hasMessageContaining("2^51");
        assertThatThrownBy(() -> store.decide("sk_1", huge, Costs.ONE)).isInstanceOf(IllegalArgumentException.class);
        // the same rate with a round q is exact at one tick per microsecond
        store.validate(Plan.of("ok", new BurstPolicy("yearly", 10_000, 366L * 86_400, QuotaUnit.REQUESTS, null)));
    }

    // ---------------------------------------------------------------------------- calendar

    @Test
    void theScriptsCalendarAgreesWithCalendarWindowForEveryAnchorDay() {
        SplittableRandom random = new SplittableRandom(31);
        int[] anchors = {1, 15, 28, 29, 30, 31};
        long from = Instant.parse("1971-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("2199-12-31T00:00:00Z").getEpochSecond();
        int checked = 0;
        for (int anchor : anchors) {
            Plan plan = Plan.of("m" + anchor, new QuotaPolicy("monthly", 1_000, CalendarWindow.monthly(anchor),
                    QuotaUnit.REQUESTS, null));
            CalendarWindow window = CalendarWindow.monthly(anchor);
            List<Long> instants = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                instants.add(random.nextLong(from, to));
            }
            for (long id = window.windowIdAt(Instant.parse("2027-12-15T00:00:00Z")); instants.size() < 80; id++) {
                long start = window.startEpochSecond(id); // each boundary, and the last second before it
                instants.add(start);
                instants.add(start - 1);
            }
            for (long second : instants) {
                ManualTimeSource at = new ManualTimeSource(Instant.ofEpochSecond(second));
                RedisLimiterStore s = store(RedisLimiterConfig.builder().scriptTime(at).localTime(at)
                        .denyCacheMaxAge(Duration.ZERO).decisionTimeout(Duration.ofSeconds(5)));
                String key = "cal-" + anchor + "-" + second;

                Decision d = s.decide(key, plan, Costs.ONE);

                long expectedEnd = window.endEpochSecond(window.windowIdAt(second));
                assertThat(d.states().get(0).resetAtEpochSecond()).as("anchor %d at %s", anchor,
                        Instant.ofEpochSecond(second)).isEqualTo(expectedEnd);
                checked++;
                s.close();
                opened.remove(s);
            }
        }
        assertThat(checked).isEqualTo(6 * 80);
    }

    // ------------------------------------------------------------------------------ script

    @Test
    void anUnknownScriptIsLoadedOnNoscriptAndTheDecisionGoesThrough() {
        LuaScript fresh = RedisLimiterStore.limiterScript().withComment("nonce " + UUID.randomUUID());
        RedisLimiterStore store = new RedisLimiterStore(RedisTestSupport.endpoint(), false,
                RedisLimiterConfig.builder().keyPrefix(prefix).scriptTime(time).localTime(time)
                        .decisionTimeout(Duration.ofSeconds(5)).build(), fresh, false);
        opened.add(store);
        assertThat(RedisTestSupport.admin().scriptExists(fresh.sha())).containsExactly(false);

        Decision first = store.decide("sk_1", FREE, Costs.ONE);
        Decision second = store.decide("sk_1", FREE, Costs.ONE);

        assertThat(first).isInstanceOf(Allowed.class);
        assertThat(second.states()).extracting(PolicyState::used).containsExactly(2L, 2L);
        assertThat(store.stats().scriptLoads()).isEqualTo(1);
        assertThat(store.stats().redisDecisions()).isEqualTo(2);
        assertThat(store.stats().fallbackDecisions()).isZero();
        assertThat(RedisTestSupport.admin().scriptExists(fresh.sha())).containsExactly(true);
    }

    // -------------------------------------------------------------------------- deny cache

    @Test
    void aKeyOverItsLimitIsAnsweredLocallyUntilItsRetryAfter() {
        RedisLimiterStore store = testClockStore();
        assertThat(store.decide("sk_hot", FREE, Costs.requests(20))).isInstanceOf(Allowed.class);
        Denied fromRedis = (Denied) store.decide("sk_hot", FREE, Costs.ONE);
        long redisCalls = store.stats().redisDecisions();

        time.advance(Duration.ofMillis(40)); // not yet the 100 ms one token takes
        Denied fromCache = (Denied) store.decide("sk_hot", FREE, Costs.ONE);

        assertThat(store.stats().redisDecisions()).isEqualTo(redisCalls);
        assertThat(store.stats().denyCacheHits()).isEqualTo(1);
        assertThat(fromRedis.exactWait()).isEqualTo(Duration.ofMillis(100));
        assertThat(fromCache.exactWait()).isEqualTo(Duration.ofMillis(60)); // aged by the 40 ms that passed
        assertThat(fromCache.states()).isEqualTo(store.usage("sk_hot", FREE).stream()
                .map(s -> s.policy().name().equals("burst") ? s.withResetSeconds(1) : s).toList());

        time.advance(Duration.ofMillis(60)); // the Retry-After has passed: Redis decides again
        assertThat(store.decide("sk_hot", FREE, Costs.ONE)).isInstanceOf(Allowed.class);
        assertThat(store.stats().redisDecisions()).isEqualTo(redisCalls + 1);
    }

    @Test
    void theDenyCacheNeverAnswersLongerThanItsMaxAge() {
        RedisLimiterStore store = store(RedisLimiterConfig.builder().scriptTime(time).localTime(time)
                .denyCacheMaxAge(Duration.ofMillis(100)).decisionTimeout(Duration.ofSeconds(5)));
        Plan tiny = Plan.of("tiny", QuotaPolicy.daily("daily", 1));
        store.decide("sk_1", tiny, Costs.ONE);
        assertThat(store.decide("sk_1", tiny, Costs.ONE)).isInstanceOf(Denied.class); // 6 h to wait
        long redisCalls = store.stats().redisDecisions();

        time.advance(Duration.ofMillis(99));
        store.decide("sk_1", tiny, Costs.ONE);
        assertThat(store.stats().redisDecisions()).isEqualTo(redisCalls);
        time.advance(Duration.ofMillis(1));
        store.decide("sk_1", tiny, Costs.ONE);
        assertThat(store.stats().redisDecisions()).isEqualTo(redisCalls + 1);
    }

    @Test
    void theDenyCacheIsBoundedInSize() {
        DenyCache cache = new DenyCache(time, Duration.ofSeconds(1).toNanos(), 3);
        Plan tiny = Plan.of("tiny", QuotaPolicy.daily("daily", 1));
        long now = Instant.parse("2026-11-30T18:00:00Z").getEpochSecond() * 1_000_000L;
        long window = CalendarWindow.daily().windowIdAt(time.now());
        long[] spent = {window, 1};
        Denied denied = ScriptStates.deniedOrNull(tiny, Costs.ONE, spent, time.now());
        for (int i = 0; i < 10; i++) {
            cache.remember("k" + i, tiny, denied, spent, now);
            assertThat(cache.size()).isLessThanOrEqualTo(3);
        }
        assertThat(cache.answer("k9", tiny, Costs.ONE)).isEqualTo(denied);
    }

    private String keyEndingWith(String suffix) {
        return RedisTestSupport.keys(prefix).stream().filter(k -> k.endsWith(suffix)).findFirst().orElseThrow();
    }
}
