package dev.sluice.redis.limiter;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.gcra.GcraParams;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.redis.internal.HashTags;

/**
 * What the limiter script needs to know about one plan, computed once per plan: the per-policy
 * arguments and the per-policy suffix of the Redis key.
 *
 * <p><b>Keys.</b> {@code <prefix>{<key hash>}:<descriptor>:<policy name>}. The braces are a Redis
 * Cluster hash tag, so every policy of one API key lives in one slot and one script can touch them all;
 * the tag is {@link HashTags#credential} of the key (SHA-256), so no API key appears in a key name.
 * The descriptor ({@code b20/2r}: burst 20 per 2 s of requests; {@code d10000r}: daily;
 * {@code m31:3r}: monthly on day 31; {@code n3i}: 3 requests in flight, a sorted set of permits)
 * makes the state of a changed policy a fresh key, as the in-memory store starts a changed policy
 * afresh; it contains no {@code :}, so the name after it may
 * contain anything and the key still decodes one way.
 *
 * <p><b>Lua's doubles.</b> The script computes in doubles, exact for integers below 2^53. A burst
 * policy's capacity in ticks ({@code w · 10^6 · ticksPerMicro}) must therefore stay at or below
 * {@value #MAX_CAPACITY_TICKS} (2^51: backlog plus a cost stays below 2^52). That admits every rate
 * whose tick scale is 1 (any {@code q} dividing {@code w · 10^6}) up to the longest window, and any
 * odd rate for windows up to 25 days; beyond that the plan is refused with an
 * {@link IllegalArgumentException} naming the policy.
 */
final class PlanLayout {

    /** The largest burst capacity in ticks the script computes exactly: 2^51. */
    static final long MAX_CAPACITY_TICKS = 1L << 51;

    private final Plan plan;
    private final String[] suffixes;
    /** Four fixed arguments per policy (kind, p1, p2, p3); the cost follows per request. */
    private final String[] fixedArgs;
    private boolean hasConcurrency;

    private PlanLayout(Plan plan) {
        this.plan = plan;
        int n = plan.size();
        suffixes = new String[n];
        fixedArgs = new String[4 * n];
        for (int i = 0; i < n; i++) {
            Policy p = plan.policy(i);
            char unit = switch (p.unit()) {
                case REQUESTS -> 'r';
                case CONTENT_BYTES -> 'c';
                case CONCURRENT_REQUESTS -> 'i';
            };
            switch (p) {
                case BurstPolicy b -> {
                    GcraParams g = plan.gcraParams(i);
                    if (g.capacityTicks() > MAX_CAPACITY_TICKS) {
                        throw new IllegalArgumentException("policy " + b.name() + " (q=" + b.quota() + ", w="
                                + b.windowSeconds() + "): its capacity of " + g.capacityTicks()
                                + " ticks exceeds the Redis store's exact range of 2^51; use a q dividing w·10^6"
                                + " or a shorter w (plan " + plan.name() + ")");
                    }
                    suffixes[i] = "b" + b.quota() + "/" + b.windowSeconds() + unit + ":" + b.name();
                    fixedArgs[4 * i] = "B";
                    fixedArgs[4 * i + 1] = Long.toString(g.ticksPerMicro());
                    fixedArgs[4 * i + 2] = Long.toString(g.emissionTicks());
                    fixedArgs[4 * i + 3] = Long.toString(g.capacityTicks());
                }
                case ConcurrencyPolicy c -> {
                    hasConcurrency = true;
                    suffixes[i] = "n" + c.quota() + unit + ":" + c.name();
                    fixedArgs[4 * i] = "C";
                    fixedArgs[4 * i + 1] = Long.toString(c.quota());
                    fixedArgs[4 * i + 2] = "0"; // the lease in µs: per store, set by args()
                    fixedArgs[4 * i + 3] = "";  // the permit id: per request, set by args()
                }
                case QuotaPolicy q -> {
                    int anchor = anchorOf(q.window());
                    suffixes[i] = (anchor == 0 ? "d" : "m" + anchor + ":") + q.quota() + unit + ":" + q.name();
                    fixedArgs[4 * i] = "Q";
                    fixedArgs[4 * i + 1] = Long.toString(q.quota());
                    fixedArgs[4 * i + 2] = Integer.toString(anchor);
                    fixedArgs[4 * i + 3] = "0";
                }
            }
        }
    }

    /**
     * The layout of {@code plan}.
     *
     * @throws IllegalArgumentException naming the policy when a burst policy is beyond the script's
     *     exact range (see the class comment)
     */
    static PlanLayout of(Plan plan) {
        return new PlanLayout(plan);
    }

    Plan plan() {
        return plan;
    }

    int size() {
        return suffixes.length;
    }

    private static int anchorOf(CalendarWindow window) {
        return switch (window) {
            case CalendarWindow.Daily d -> 0;
            case CalendarWindow.Monthly m -> m.anchorDay();
        };
    }

    /**
     * How many keys' names are remembered (the SHA-256 of the key and the concatenations are then
     * skipped on its next request); past it the memory is cleared and refilled.
     */
    static final int KEY_CACHE_SIZE = 16_384;

    private final java.util.concurrent.ConcurrentHashMap<String, String[]> keyCache =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile String cachedPrefix;

    /** The Redis keys of {@code key}'s policies, in plan order; shared, never to be changed. */
    String[] keys(String prefix, String key) {
        String cached = cachedPrefix;
        if (cached == null) {
            cachedPrefix = cached = prefix; // a store uses one prefix
        }
        if (!cached.equals(prefix)) {
            return computeKeys(prefix, key);
        }
        String[] keys = keyCache.get(key);
        if (keys == null) {
            if (keyCache.size() >= KEY_CACHE_SIZE) {
                keyCache.clear();
            }
            keys = computeKeys(prefix, key);
            keyCache.put(key, keys);
        }
        return keys;
    }

    private String[] computeKeys(String prefix, String key) {
        String tagged = HashTags.taggedCredential(prefix, key);
        String[] keys = new String[suffixes.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = tagged + suffixes[i];
        }
        return keys;
    }

    /**
     * The script arguments of a decision ({@code op} D), usage read ({@code op} U) or release
     * ({@code op} L). {@code leaseMicros} and {@code permit} fill the concurrency policies' arguments:
     * how long a slot is held at most, and the id of this request's slot (ignored for other ops).
     */
    String[] args(String op, String nowMicros, String minTtlMillis, Costs costs, String leaseMicros, String permit) {
        int n = suffixes.length;
        String[] args = new String[3 + 5 * n];
        args[0] = op;
        args[1] = nowMicros;
        args[2] = minTtlMillis;
        for (int i = 0; i < n; i++) {
            int at = 3 + 5 * i;
            System.arraycopy(fixedArgs, 4 * i, args, at, 4);
            args[at + 4] = costs == null ? "0" : Long.toString(costs.costFor(plan.policy(i)));
            if (plan.isConcurrency(i)) {
                args[at + 2] = leaseMicros;
                args[at + 3] = permit;
            }
        }
        return args;
    }

    /** Whether the plan has a concurrency policy (its decisions carry a permit id). */
    boolean hasConcurrency() {
        return hasConcurrency;
    }

    /** The script arguments that refund {@code charge}: each quota policy names the window it charged. */
    String[] refundArgs(String nowMicros, String minTtlMillis, Allowed charge) {
        String[] args = args("R", nowMicros, minTtlMillis, charge.costs(), "0", charge.lease());
        for (int i = 0; i < suffixes.length; i++) {
            if (plan.policy(i) instanceof QuotaPolicy q) {
                long chargedEnd = charge.states().get(i).resetAtEpochSecond();
                args[3 + 5 * i + 3] = Long.toString(q.window().windowIdAt(chargedEnd - 1));
            }
        }
        return args;
    }
}
