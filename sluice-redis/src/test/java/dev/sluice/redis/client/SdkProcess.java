package dev.sluice.redis.client;

import dev.sluice.client.CallOptions;
import dev.sluice.client.DeadlineExceededException;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.core.ClientStats;
import dev.sluice.redis.RedisEndpoint;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One SDK process of {@link SharedProviderLimitTest}: a JVM of its own that runs a
 * {@link SluiceHttpClient} against the test's provider when told to. Commands on stdin, one per line:
 * <ul>
 *   <li>{@code RUN <shared|local> <limit name> <url> <duration ms> <workers>}: builds a client (paced by
 *       the documented 50/s, burst 50, at 90 %; with {@code shared}, on the Redis bucket and budget of
 *       that limit), runs {@code workers} threads calling {@code url} in a loop for the duration, and
 *       prints {@code RESULT k=v ...};</li>
 *   <li>{@code EXIT}.</li>
 * </ul>
 * Prints {@code READY} once its Redis connection is up. Arguments: Redis URI, key prefix, process
 * count {@code N}, this process's name.
 */
public final class SdkProcess {

    private SdkProcess() {
    }

    public static void main(String[] args) throws Exception {
        String redisUri = args[0];
        String prefix = args[1];
        int processCount = Integer.parseInt(args[2]);
        String name = args[3];
        try (RedisEndpoint endpoint = RedisEndpoint.connect(redisUri)) {
            endpoint.whenUp().toCompletableFuture().get(20, TimeUnit.SECONDS);
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                String[] cmd = line.trim().split(" ");
                if (cmd[0].equals("RUN")) {
                    String result = run(endpoint, prefix, processCount, name, cmd[1].equals("shared"), cmd[2],
                            URI.create(cmd[3]), Duration.ofMillis(Long.parseLong(cmd[4])), Integer.parseInt(cmd[5]));
                    System.out.println("RESULT " + result);
                    System.out.flush();
                }
            }
        }
    }

    private static String run(RedisEndpoint endpoint, String prefix, int processCount, String name, boolean shared,
            String limitName, URI url, Duration duration, int workers) throws InterruptedException {
        SluiceHttpClient.Builder builder = SluiceHttpClient.builder()
                .httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5)).build())
                .pacer(PacerConfig.documented(50, 50));
        RedisClientLimits limits = null;
        if (shared) {
            // a 500 ms bound: this run is about sharing; with 50 ms a busy 2-core machine sent up to 27
            // calls to the local rate/N fallback and cost the shared run its throughput (the failure
            // modes are RedisPauseFallbackTest's and SharedLimitsFallbackTest's subject)
            limits = RedisClientLimits.over(endpoint, limitName, SharedLimitsConfig.builder().keyPrefix(prefix)
                    .processCount(processCount).decisionTimeout(Duration.ofMillis(500)).build());
            builder.tokenBucketStore(limits.tokenBucket()).retryBudgetStore(limits.retryBudget());
        }
        LongAdder ok = new LongAdder();
        LongAdder rateLimited = new LongAdder();
        LongAdder dropped = new LongAdder();
        LongAdder budget = new LongAdder();
        LongAdder deadline = new LongAdder();
        LongAdder shed = new LongAdder();
        LongAdder other = new LongAdder();
        ClientStats stats;
        try (SluiceHttpClient client = builder.build()) {
            HttpRequest request = HttpRequest.newBuilder(url).header("X-Process", name).GET().build();
            long end = System.nanoTime() + duration.toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                threads.add(Thread.ofPlatform().name(name + "-worker-" + w).start(() -> {
                    while (System.nanoTime() - end < 0) {
                        try {
                            client.send(request, HttpResponse.BodyHandlers.discarding(),
                                    CallOptions.defaults().withDeadline(Duration.ofSeconds(2)));
                            ok.increment();
                        } catch (RateLimitedException e) {
                            rateLimited.increment();
                        } catch (LocallyThrottledException e) {
                            dropped.increment();
                        } catch (RetryBudgetExhaustedException e) {
                            budget.increment();
                        } catch (DeadlineExceededException e) {
                            deadline.increment();
                        } catch (ShedException e) {
                            shed.increment();
                        } catch (SluiceException e) {
                            other.increment();
                        } catch (Exception e) {
                            other.increment();
                            if (e instanceof InterruptedException) {
                                return;
                            }
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            stats = client.stats();
        }
        String store = limits == null ? "storeRedis=0 storeLocal=0"
                : "storeRedis=" + limits.tokenBucket().stats().redisCalls()
                        + " storeLocal=" + limits.tokenBucket().stats().localAnswers();
        return "ok=" + ok.sum() + " rateLimited=" + rateLimited.sum() + " dropped=" + dropped.sum()
                + " budget=" + budget.sum() + " deadline=" + deadline.sum() + " shed=" + shed.sum()
                + " other=" + other.sum() + " calls=" + stats.calls() + " attempts=" + stats.attempts()
                + " retries=" + stats.retries() + " " + store;
    }
}
