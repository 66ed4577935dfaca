package dev.sluice.sim.engine;

import dev.sluice.sim.Headline;
import dev.sluice.sim.SecondRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts events into one-second buckets and keeps the time-average of the calls waiting in clients.
 * Memory does not grow with the calls: per second a few counters (and that second's latencies, for
 * its exact p99, reused from second to second); over the measure window two fixed-size
 * {@link LatencyHistogram}s. Events must be reported in time order (the event loop guarantees it).
 * Not thread-safe.
 */
final class Recorder {

    private static final long SECOND = 1_000_000_000L;

    private final int seconds;
    private final long measureFromNanos;
    private final long measureToNanos;
    private final long[] calls;
    private final long[] requests;
    private final long[] retries;
    private final long[] accepts;
    private final long[] rejected;
    private final long[] throttled;
    private final long[] shed;
    private final long[] successes;
    private final long[] failures;
    private final double[] waitingMean;
    private final double[] latencyMean;
    private final double[] latencyP99;
    private final Progress progress;

    private int current;
    private int waiting;
    private long lastNanos;
    private double areaNanos;
    private final LongList secondLatencies = new LongList();
    private final LatencyHistogram windowSuccess = new LatencyHistogram();
    private final LatencyHistogram windowFinished = new LatencyHistogram();
    private long windowWaitExits;
    private double windowWaitNanos;
    private long windowWaitEntries;

    /** Called as each simulated second closes. */
    interface Progress {
        void secondClosed(int second);
    }

    Recorder(int seconds, long measureFromNanos, long measureToNanos, Progress progress) {
        this.seconds = seconds;
        this.measureFromNanos = measureFromNanos;
        this.measureToNanos = measureToNanos;
        this.progress = progress;
        calls = new long[seconds];
        requests = new long[seconds];
        retries = new long[seconds];
        accepts = new long[seconds];
        rejected = new long[seconds];
        throttled = new long[seconds];
        shed = new long[seconds];
        successes = new long[seconds];
        failures = new long[seconds];
        waitingMean = new double[seconds];
        latencyMean = new double[seconds];
        latencyP99 = new double[seconds];
    }

    /** Moves the recorder's clock to {@code now}, closing every second that ended before it. */
    void at(long now) {
        while (current < seconds && now >= (current + 1L) * SECOND) {
            long end = (current + 1L) * SECOND;
            areaNanos += (double) waiting * (end - lastNanos);
            lastNanos = end;
            close(current);
            current++;
        }
        if (now > lastNanos) {
            areaNanos += (double) waiting * (now - lastNanos);
            lastNanos = now;
        }
    }

    /** Closes the remaining seconds: the run is over at {@code endNanos}. */
    void finish(long endNanos) {
        at(endNanos);
    }

    private void close(int s) {
        waitingMean[s] = areaNanos / SECOND;
        areaNanos = 0;
        LongList l = secondLatencies;
        if (l.size() > 0) {
            long sum = 0;
            for (int i = 0; i < l.size(); i++) {
                sum += l.get(i);
            }
            latencyMean[s] = sum / (double) l.size() / 1e6;
            latencyP99[s] = l.percentile(0.99) / 1e6;
        } else {
            latencyMean[s] = Double.NaN; // no call succeeded: no latency, not a latency of 0
            latencyP99[s] = Double.NaN;
        }
        l.clear();
        if (progress != null) {
            progress.secondClosed(s);
        }
    }

    private boolean inWindow(long now) {
        return now >= measureFromNanos && now < measureToNanos;
    }

    void call() {
        calls[current]++;
    }

    void request(boolean retry) {
        requests[current]++;
        if (retry) {
            retries[current]++;
        }
    }

    void accept() {
        accepts[current]++;
    }

    void reject() {
        rejected[current]++;
    }

    void throttled() {
        throttled[current]++;
    }

    void shed() {
        shed[current]++;
    }

    /**
     * A call ended in failure after every layer gave up, {@code latencyNanos} after it was opened
     * (its retries' and waits' time included).
     */
    void failure(long now, long latencyNanos) {
        failures[current]++;
        if (inWindow(now)) {
            windowFinished.add(latencyNanos);
        }
    }

    /** A call succeeded {@code latencyNanos} after it was opened (its retries' and waits' time included). */
    void success(long now, long latencyNanos) {
        successes[current]++;
        secondLatencies.add(latencyNanos);
        if (inWindow(now)) {
            windowSuccess.add(latencyNanos);
            windowFinished.add(latencyNanos);
        }
    }

    /** A call starts waiting inside its client (admitted to the queue, or scheduled for a retry). */
    void waitBegins(long now) {
        waiting++;
        if (inWindow(now)) {
            windowWaitEntries++;
        }
    }

    /** A call stops waiting (it starts, or the client drops it) after {@code waitedNanos}. */
    void waitEnds(long now, long waitedNanos) {
        waiting--;
        if (inWindow(now)) {
            windowWaitExits++;
            windowWaitNanos += waitedNanos;
        }
    }

    List<SecondRow> rows() {
        List<SecondRow> rows = new ArrayList<>(seconds);
        for (int s = 0; s < seconds; s++) {
            rows.add(new SecondRow(s, calls[s], requests[s], retries[s], accepts[s], rejected[s],
                    throttled[s] + shed[s], throttled[s], shed[s], successes[s], failures[s], waitingMean[s],
                    latencyMean[s], latencyP99[s]));
        }
        return rows;
    }

    /**
     * The headline figures over the measure window (whole seconds).
     *
     * @param incidentEndSecond the end of the last outage in seconds, or {@code NaN}
     */
    Headline headline(double incidentEndSecond) {
        int from = (int) (measureFromNanos / SECOND);
        int to = (int) Math.min(seconds, (measureToNanos + SECOND - 1) / SECOND);
        double span = Math.max(1, to - from);
        long c = sum(calls, from, to);
        long req = sum(requests, from, to);
        long thr = sum(throttled, from, to);
        long acc = sum(accepts, from, to);
        long peak = 0;
        long peakRetries = 0;
        double waitingSum = 0;
        for (int s = from; s < to; s++) {
            peak = Math.max(peak, requests[s]);
            peakRetries = Math.max(peakRetries, retries[s]);
            waitingSum += waitingMean[s];
        }
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("calls_per_s", c / span);
        v.put("requests_per_s", req / span);
        v.put("peak_requests_per_s", (double) peak);
        v.put("peak_retries_per_s", (double) peakRetries);
        v.put("retries_per_s", sum(retries, from, to) / span);
        v.put("accepts_per_s", acc / span);
        v.put("useful_throughput_per_s", sum(successes, from, to) / span);
        v.put("failures_per_s", sum(failures, from, to) / span);
        long drops = thr + sum(shed, from, to);
        v.put("drops_per_s", drops / span);
        v.put("amplification", c == 0 ? Double.NaN : req / (double) c);
        v.put("drop_fraction", c == 0 ? Double.NaN : drops / (double) c);
        v.put("accept_ratio", req + thr == 0 ? Double.NaN : acc / (double) (req + thr));
        v.put("latency_mean_ms", windowSuccess.mean() / 1e6);
        v.put("latency_p99_ms", windowSuccess.percentile(0.99) / 1e6);
        v.put("finished_latency_mean_ms", windowFinished.mean() / 1e6);
        v.put("finished_latency_p99_ms", windowFinished.percentile(0.99) / 1e6);
        v.put("waiting_mean", waitingSum / span);
        v.put("wait_entries_per_s", windowWaitEntries / span);
        v.put("wait_mean_ms", windowWaitExits == 0 ? Double.NaN : windowWaitNanos / windowWaitExits / 1e6);
        v.put("recovery_s", recovery(incidentEndSecond));
        return new Headline(v);
    }

    /** Seconds after the incident until requests stay within 10 % of calls (plus one) for 10 s, or to the end. */
    private double recovery(double incidentEndSecond) {
        if (Double.isNaN(incidentEndSecond)) {
            return Double.NaN;
        }
        int start = (int) Math.ceil(incidentEndSecond);
        int calm = 0;
        for (int s = start; s < seconds; s++) {
            if (requests[s] <= 1.1 * calls[s] + 1) {
                calm++;
                if (calm == 10) {
                    return s - calm + 1 - incidentEndSecond;
                }
            } else {
                calm = 0;
            }
        }
        // calm from some second to the end of a run that ends less than 10 s later counts too
        return calm > 0 ? seconds - calm - incidentEndSecond : -1;
    }

    private static long sum(long[] a, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += a[i];
        }
        return s;
    }

    /** A growable array of longs. */
    static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        int size() {
            return size;
        }

        void clear() {
            size = 0;
        }

        long get(int i) {
            return values[i];
        }

        /** Nearest-rank percentile; sorts in place. */
        long percentile(double p) {
            Arrays.sort(values, 0, size);
            int rank = (int) Math.ceil(p * size) - 1;
            return values[Math.max(0, Math.min(size - 1, rank))];
        }
    }
}
