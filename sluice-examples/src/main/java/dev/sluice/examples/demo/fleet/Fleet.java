package dev.sluice.examples.demo.fleet;

import dev.sluice.examples.demo.series.SeriesRecorder;
import dev.sluice.time.TimeSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/**
 * A fleet of virtual clients calling Shiplane through the edge over real HTTP: one virtual thread
 * per client, each making calls at Poisson arrivals of its own rate, one call at a time (a client
 * busy retrying makes its next call late, not doubled). Clients make their first call at a random
 * moment of a ramp-up, as a fleet of application instances does not start in one instant. All clients share one JDK
 * {@link HttpClient} (HTTP/1.1, a pool of keep-alive connections) under a {@link WireTap}, so every
 * attempt on the wire is counted whichever {@link CallTransport} made it.
 *
 * <p>Randomness is split per client from one seed: the operation mix, the arrivals, the request
 * bodies and the Idempotency-Keys are the same on every run with the same seed (the timing of the
 * answers is not). Lifecycle: {@link #start()} once, then {@link #stop(Duration)}; thread-safe.
 */
public final class Fleet implements AutoCloseable {

    /** The per-attempt timeout the fleet's requests carry. */
    public static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

    private final URI edge;
    private final List<ClientSpec> clients;
    private final OperationMix mix;
    private final CallTransport.Factory transports;
    private final SeriesRecorder recorder;
    private final TimeSource time;
    private final Duration rampUp;
    private final SplittableRandom seedRandom;
    private final Map<CallResult.Kind, LongAdder> totals = new EnumMap<>(CallResult.Kind.class);
    private final List<Thread> threads = new ArrayList<>();
    private final List<CallTransport> open = new ArrayList<>();
    private final ExecutorService httpExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private HttpClient jdk;
    private WireTap tap;
    private volatile boolean stopped;

    /**
     * @param edge the edge's base URI ({@code http://127.0.0.1:PORT})
     * @param clients the virtual clients
     * @param mix what they call
     * @param transports how each makes its calls
     * @param recorder where attempts and events are counted
     * @param time the clock of the arrivals
     * @param rampUp clients make their first call at a uniformly random moment of this span
     * @param seed the root of every client's random source
     */
    public Fleet(URI edge, List<ClientSpec> clients, OperationMix mix, CallTransport.Factory transports,
            SeriesRecorder recorder, TimeSource time, Duration rampUp, long seed) {
        this.edge = Objects.requireNonNull(edge, "edge");
        this.clients = List.copyOf(clients);
        this.mix = Objects.requireNonNull(mix, "mix");
        this.transports = Objects.requireNonNull(transports, "transports");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.time = Objects.requireNonNull(time, "time");
        this.rampUp = Objects.requireNonNull(rampUp, "rampUp");
        this.seedRandom = new SplittableRandom(seed);
        for (CallResult.Kind k : CallResult.Kind.values()) {
            totals.put(k, new LongAdder());
        }
    }

    /** Starts every client. */
    public synchronized void start() {
        if (jdk != null) {
            throw new IllegalStateException("already started");
        }
        jdk = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance; the edge speaks both
                .connectTimeout(Duration.ofSeconds(5))
                .executor(httpExecutor)
                .build();
        tap = new WireTap(jdk, recorder);
        for (ClientSpec spec : clients) {
            SplittableRandom random = seedRandom.split();
            CallTransport transport = transports.create(spec, tap, random.split());
            open.add(transport);
            threads.add(Thread.ofVirtual().name("fleet-client-" + spec.id()).start(() -> run(spec, transport, random)));
        }
    }

    /**
     * Stops the fleet: no new calls; calls in progress get {@code grace} to finish, then are
     * interrupted (an attempt cut off counts as "other", a call waiting to retry as abandoned).
     * Returns within about {@code grace} plus two seconds.
     */
    public void stop(Duration grace) {
        stopped = true;
        long deadline = time.nanoTime() + grace.toNanos();
        for (Thread t : threads) {
            joinUntil(t, deadline);
        }
        threads.stream().filter(Thread::isAlive).forEach(Thread::interrupt);
        long hard = time.nanoTime() + Duration.ofSeconds(2).toNanos();
        for (Thread t : threads) {
            joinUntil(t, hard);
        }
        synchronized (this) {
            open.forEach(CallTransport::close);
            if (jdk != null) {
                jdk.shutdownNow();
            }
        }
        httpExecutor.shutdownNow();
    }

    @Override
    public void close() {
        stop(Duration.ZERO);
    }

    /** Attempts on the wire right now. */
    public int inFlight() {
        WireTap t = tap;
        return t == null ? 0 : t.inFlight();
    }

    /** How the calls so far ended. */
    public CallTotals totals() {
        Map<CallResult.Kind, Long> snapshot = new EnumMap<>(CallResult.Kind.class);
        totals.forEach((k, v) -> snapshot.put(k, v.sum()));
        return new CallTotals(snapshot);
    }

    private void run(ClientSpec spec, CallTransport transport, RandomGenerator random) {
        double meanGapNanos = 1e9 / spec.callsPerSecond();
        long next = time.nanoTime() + (long) (random.nextDouble() * rampUp.toNanos());
        while (!stopped) {
            long wait = next - time.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            Operation op = mix.pick(random);
            try {
                CallResult result = transport.call(request(spec, op, random), op);
                totals.get(result.kind()).increment();
            } catch (InterruptedException e) {
                totals.get(CallResult.Kind.ABANDONED).increment();
                return;
            } catch (RuntimeException e) {
                totals.get(CallResult.Kind.FAILED).increment();
            }
            long now = time.nanoTime();
            next += (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos); // exponential gaps
            if (next - now < 0) {
                next = now; // a late client does not catch up in a burst
            }
        }
    }

    private HttpRequest request(ClientSpec spec, Operation op, RandomGenerator random) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(edge + op.path()))
                .timeout(ATTEMPT_TIMEOUT)
                .header("Authorization", "Bearer " + spec.apiKey());
        if (!op.write()) {
            return b.GET().build();
        }
        String body = String.format("{\"from\":\"%05d\",\"to\":\"%05d\",\"weight_g\":%d,\"service\":\"ground\"}",
                random.nextInt(100_000), random.nextInt(100_000), 100 + random.nextInt(20_000));
        return b.header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey(random))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /** A version-4-shaped UUID from the client's own seeded source. */
    private static String idempotencyKey(RandomGenerator random) {
        long hi = (random.nextLong() & ~0xF000L) | 0x4000L;
        long lo = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new java.util.UUID(hi, lo).toString();
    }

    private void joinUntil(Thread t, long deadlineNanos) {
        long left = deadlineNanos - time.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            t.join(Duration.ofNanos(left));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
