package dev.sluice.sim;

/**
 * What happened in one simulated second {@code [second, second + 1)} (SPEC §7.3). Counts are
 * events in that second; {@code waiting} is the time-average over it.
 *
 * @param second the second since the start of the run
 * @param calls calls the application opened (its demand; an application loop's re-calls excluded)
 * @param requests requests that reached the server (first attempts and retries of every layer)
 * @param retries of {@code requests}, those that were not a call's first attempt: SDK retries and
 *     application re-calls
 * @param accepts requests the server admitted (answered 2xx)
 * @param rejected requests the server refused (429 limit or outage, 503 shed or outage)
 * @param drops calls or retries a client refused locally: {@code throttled} plus {@code shed}
 * @param throttled dropped by the adaptive throttle (SPEC §4.5)
 * @param shed refused by a client's admission queue: full, evicted, or past the deadline (SPEC §5)
 * @param successes calls that ended with a 2xx: the useful throughput
 * @param failures calls that ended in an error (drops included) after every layer gave up
 * @param waiting calls waiting inside clients (queued or backing off), averaged over the second
 * @param latencyMeanMillis mean end-to-end time from a call's opening to its success (its retries,
 *     backoffs and queue waits included), for calls succeeding in this second; {@code NaN} when none
 * @param latencyP99Millis the 99th percentile (nearest rank) of the same; {@code NaN} when none
 */
public record SecondRow(
        int second,
        long calls,
        long requests,
        long retries,
        long accepts,
        long rejected,
        long drops,
        long throttled,
        long shed,
        long successes,
        long failures,
        double waiting,
        double latencyMeanMillis,
        double latencyP99Millis) {

    /** Column names of {@code series.csv} and the JSON lines, in order. */
    public static final java.util.List<String> COLUMNS = java.util.List.of("second", "calls", "requests", "retries",
            "accepts", "rejected", "drops", "throttled", "shed", "successes", "failures", "waiting",
            "latency_mean_ms", "latency_p99_ms");
}
