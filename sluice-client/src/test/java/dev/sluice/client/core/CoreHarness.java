package dev.sluice.client.core;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.SluiceException;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Drives a {@link ClientCore} on a {@link ManualTimeSource} against an in-test server, the way a
 * simulator would: a discrete-event loop with no threads and no sleeping.
 */
final class CoreHarness {

    /** One request as the server saw it. */
    record Sent(long callId, int attempt, String idempotencyKey, long atNanos) {
    }

    /** How a call ended: a value or an error. */
    record Result(boolean ok, SluiceException error, long atNanos, int attempts) {
    }

    private record Event(long atNanos, long seq, Runnable action) {
    }

    final ManualTimeSource time = new ManualTimeSource(Instant.parse("2026-11-30T18:00:00Z"), 0);
    final ClientCore<String> core;
    final List<Sent> sent = new ArrayList<>();
    final Map<Long, Result> results = new LinkedHashMap<>();
    final List<Decision> decisions = new ArrayList<>();
    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
            ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.seq, b.seq));
    private long seq;
    private Function<Sent, Answer> server = s -> { throw new IllegalStateException("no server"); };
    private Duration latency = Duration.ofMillis(10);
    private Function<Sent, Duration> arrivalDelay = s -> Duration.ZERO;
    private final Map<Long, CoreCall<String>> calls = new LinkedHashMap<>();

    CoreHarness(ClientConfig config) {
        this(config, ClientListener.none(), 42);
    }

    CoreHarness(ClientConfig config, ClientListener listener, long seed) {
        int[] keys = {0};
        core = ClientCore.create(config, CoreEnvironment.of(time, new SplittableRandom(seed))
                .withIdempotencyKeys(() -> "K" + (++keys[0]))
                .withListener(listener));
    }

    CoreHarness server(Function<Sent, Answer> s) {
        this.server = s;
        return this;
    }

    CoreHarness latency(Duration d) {
        this.latency = d;
        return this;
    }

    /**
     * How long each request travels before the server sees it (connection set-up, scheduling):
     * the server is then asked at the arrival time, with {@code Sent.atNanos} = the arrival, and
     * answers {@code latency} later. {@link #sent} keeps the send times.
     */
    CoreHarness arrivalDelay(Function<Sent, Duration> d) {
        this.arrivalDelay = d;
        return this;
    }

    /** Opens a call now; an error at open is recorded as its result. Returns the call id or -1. */
    long open(CallSpec spec) {
        try {
            CoreCall<String> call = core.open(spec, "c");
            calls.put(call.id(), call);
            return call.id();
        } catch (SluiceException e) {
            long id = -1000 - results.size();
            results.put(id, new Result(false, e, time.nanoTime(), e.attempts()));
            return id;
        }
    }

    /** Opens a call at a later time. */
    void openAt(Duration at, CallSpec spec) {
        schedule(at.toNanos(), () -> open(spec));
    }

    void schedule(long atNanos, Runnable action) {
        events.add(new Event(atNanos, seq++, action));
    }

    /** Runs until nothing is left to do or {@code limit} of simulated time has passed. */
    void run(Duration limit) {
        long end = time.nanoTime() + limit.toNanos();
        while (true) {
            Dispatch<String> d = core.poll();
            for (CoreCall<String> call : d.start()) {
                Sent s = new Sent(call.id(), call.attempts(), call.idempotencyKey(), time.nanoTime());
                sent.add(s);
                long delay = arrivalDelay.apply(s).toNanos();
                if (delay == 0) {
                    Answer answer = server.apply(s);
                    schedule(time.nanoTime() + latency.toNanos(), () -> answer(call, answer));
                } else {
                    long arrival = time.nanoTime() + delay;
                    schedule(arrival, () -> {
                        Answer answer = server.apply(new Sent(s.callId(), s.attempt(), s.idempotencyKey(), arrival));
                        schedule(arrival + latency.toNanos(), () -> answer(call, answer));
                    });
                }
            }
            for (Dispatch.Rejection<String> r : d.failed()) {
                results.put(r.call().id(), new Result(false, r.error(), time.nanoTime(), r.call().attempts()));
            }
            long next = Long.MAX_VALUE;
            if (!events.isEmpty()) {
                next = events.peek().atNanos;
            }
            if (d.wakeAtNanos().isPresent()) {
                next = Math.min(next, d.wakeAtNanos().getAsLong());
            }
            if (next == Long.MAX_VALUE || next > end) {
                return;
            }
            if (next > time.nanoTime()) {
                time.advance(Duration.ofNanos(next - time.nanoTime()));
            }
            while (!events.isEmpty() && events.peek().atNanos <= time.nanoTime()) {
                events.poll().action.run();
            }
        }
    }

    private void answer(CoreCall<String> call, Answer answer) {
        Decision decision = core.onAnswer(call, answer);
        decisions.add(decision);
        switch (decision) {
            case Decision.Return r -> results.put(call.id(), new Result(true, null, time.nanoTime(), call.attempts()));
            case Decision.Fail f -> results.put(call.id(), new Result(false, f.error(), time.nanoTime(), call.attempts()));
            case Decision.RetryAfter ra -> { }
        }
    }

    Result result(long id) {
        return results.get(id);
    }

    List<Sent> sentFor(long callId) {
        return sent.stream().filter(s -> s.callId() == callId).toList();
    }

    static Answer response(dev.sluice.wire.snapshot.RateLimitSnapshot s) {
        return Answer.Response.of(s);
    }
}
