package dev.sluice.limiter;

/**
 * A limit on requests in flight at once (SPEC §1, quota unit {@code concurrent-requests}): a key may
 * hold at most {@code q} admitted requests whose answers have not completed. A request takes one unit
 * when every policy of its plan admits it (SPEC §3.3) and gives it back through
 * {@link dev.sluice.limiter.spi.LimiterStore#release} when its upstream answer has completed or its
 * client went away. It has no window: {@code RateLimit-Policy} carries {@code q} and
 * {@code qu="concurrent-requests"} without {@code w}; a denial's Retry-After is
 * {@link #RETRY_AFTER_SECONDS} (a slot frees when some request of the key ends, which the edge cannot
 * predict; one second is the shortest honest delay-seconds value, SPEC §2.3).
 *
 * @param name the policy name (printable ASCII, not blank)
 * @param quota {@code q}: requests in flight at most, &gt; 0
 * @param partitionKey the {@code pk} to emit, or {@code null}
 */
public record ConcurrencyPolicy(String name, long quota, String partitionKey) implements Policy {

    /** The Retry-After of a denial by a concurrency policy, in seconds. */
    public static final long RETRY_AFTER_SECONDS = 1;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range
     */
    public ConcurrencyPolicy {
        Policy.requireCommon(name, quota, QuotaUnit.REQUESTS);
    }

    /** A concurrency policy without partition key: {@code q} requests in flight at most. */
    public static ConcurrencyPolicy of(String name, long quota) {
        return new ConcurrencyPolicy(name, quota, null);
    }

    /** Always {@link QuotaUnit#CONCURRENT_REQUESTS}. */
    @Override
    public QuotaUnit unit() {
        return QuotaUnit.CONCURRENT_REQUESTS;
    }

    /** Always 0: a concurrency policy has no window ({@code w} is not sent). */
    @Override
    public long windowSeconds() {
        return 0;
    }
}
