package dev.sluice.examples.demo.fleet;

import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import dev.sluice.time.TimeSource;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/**
 * A fleet of virtual clients calling Shiplane through the edge over real HTTP. Each client is an
 * application instance: its users make calls at Poisson arrivals of the client's rate whether or not
 * earlier calls are still retrying (open arrivals, as the workers of the incident in the reference
 * documents did), each call on its own virtual thread. Clients make their first call at a random
 * moment of a ramp-up, as a fleet of instances does not start in one instant.
 *
 * <p>Each client has its own JDK {@link HttpClient} (HTTP/1.1 keep-alive) bound, where the machine
 * allows it, to its own loopback source address ({@link SourceAddresses}), so the edge tells the
 * clients of one key apart (SPEC §3.12 counts retry loops per key and client address). Under each
 * sits a {@link WireTap} into one recorder, so every attempt on the wire is counted whichever
 * {@link CallTransport} made it.
 *
 * <p>Randomness is split per client from one seed: the arrivals, the operation mix, the request
 * bodies, the order references and the Idempotency-Keys are the same on every run with the same
 * seed and client count, whichever transport runs (the timing of the answers is not). Lifecycle:
 * {@link #prepare(Duration)} once, {@link #start()} once, then {@link #stop(Duration)}; thread-safe.
 */
public final class Fleet implements AutoCloseable {

    /**
     * The per-attempt timeout every client's requests carry (the same for the three clients): far
     * above a normal answer (20 ms), and above what a busy 2-core machine adds, but below the
     * blip's stalls.
     */
    public static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);

    /** The header naming the logical call an attempt belongs to (the tap counts repeats as retries). */
    static final String CALL_HEADER = "X-Demo-Call";

    private final URI edge;
    private final List<ClientSpec> clients;
    private final OperationMix mix;
    private final CallTransport.Factory transports;
    private final SeriesRecorder recorder;
    private final TimeSource time;
    private final Duration rampUp;
    private final long seed;
    private final SourceAddresses addresses;
    private final Map<CallResult.Kind, LongAdder> totals = new EnumMap<>(CallResult.Kind.class);
    private final List<Thread> arrivals = new ArrayList<>();
    private final Set<Thread> calls = ConcurrentHashMap.newKeySet();
    private final List<Client> open = new ArrayList<>();
    private final ExecutorService httpExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private boolean prepared;
    private boolean started;
    private volatile boolean stopped;

    /**
     * @param edge the edge's base URI ({@code http://127.0.0.1:PORT})
     * @param clients the virtual clients
     * @param mix what they call
     * @param transports how each makes its calls
     * @param recorder where attempts and calls are counted
     * @param time the clock of the arrivals
     * @param rampUp clients make their first call at a uniformly random moment of this span
     * @param seed the root of every client's random source
     * @param addresses the source address of each client
     */
    public Fleet(URI edge, List<ClientSpec> clients, OperationMix mix, CallTransport.Factory transports,
            SeriesRecorder recorder, TimeSource time, Duration rampUp, long seed, SourceAddresses addresses) {
        this.edge = Objects.requireNonNull(edge, "edge");
        this.clients = List.copyOf(clients);
        this.mix = Objects.requireNonNull(mix, "mix");
        this.transports = Objects.requireNonNull(transports, "transports");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.time = Objects.requireNonNull(time, "time");
        this.rampUp = Objects.requireNonNull(rampUp, "rampUp");
        this.seed = seed;
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        for (CallResult.Kind k : CallResult.Kind.values()) {
            totals.put(k, new LongAdder());
        }
    }

    /**
     * Builds every client (its JDK client, tap and transport) and waits, up to {@code maxWait}, for
     * the transports to be ready (the SDK seeds its pacer from {@code GET /v1/usage} here, before the
     * run's clock starts).
     */
    public synchronized void prepare(Duration maxWait) {
        if (prepared) {
            throw new IllegalStateException("already prepared");
        }
        prepared = true;
        SplittableRandom seeds = new SplittableRandom(seed);
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (ClientSpec spec : clients) {
            SplittableRandom random = seeds.split();
            HttpClient.Builder jdk = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance; the edge speaks both
                    .connectTimeout(Duration.ofSeconds(5))
                    .executor(httpExecutor);
            Optional<InetAddress> source = addresses.of(spec.id());
            source.ifPresent(jdk::localAddress);
            HttpClient http = jdk.build();
            WireTap tap = new WireTap(http, recorder);
            CallTransport transport = transports.create(spec, tap, random.split());
            open.add(new Client(spec, http, tap, transport, random));
            ready.add(transport.ready());
        }
        try {
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // a transport that is not ready works without what it was preparing (the SDK: no seed)
        }
    }

    /** Starts every client's arrivals. */
    public synchronized void start() {
        if (!prepared || started) {
            throw new IllegalStateException(prepared ? "already started" : "prepare() first");
        }
        started = true;
        for (Client c : open) {
            arrivals.add(Thread.ofVirtual().name("fleet-client-" + c.spec.id()).start(() -> arrive(c)));
        }
    }

    /**
     * Stops the fleet: no new calls; calls in progress get {@code grace} to finish, then are
     * interrupted (an attempt cut off counts as "other", a call waiting to retry as abandoned).
     * Returns within about {@code grace} plus two seconds.
     */
    public void stop(Duration grace) {
        stopped = true;
        for (Thread t : arrivals) {
            joinUntil(t, time.nanoTime() + Duration.ofSeconds(1).toNanos());
        }
        long deadline = time.nanoTime() + grace.toNanos();
        for (Thread t : List.copyOf(calls)) {
            joinUntil(t, deadline);
        }
        calls.forEach(Thread::interrupt);
        long hard = time.nanoTime() + Duration.ofSeconds(2).toNanos();
        for (Thread t : List.copyOf(calls)) {
            joinUntil(t, hard);
        }
        synchronized (this) {
            for (Client c : open) {
                c.transport.close();
                c.http.shutdownNow();
            }
        }
        // an attempt cut off by the shutdown completes on another thread: wait (bounded) until every
        // attempt is answered and every call counted, so that the run's counts add up
        long quiet = time.nanoTime() + Duration.ofSeconds(3).toNanos();
        while ((inFlight() > 0 || !calls.isEmpty()) && time.nanoTime() - quiet < 0) {
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        transports.close();
        httpExecutor.shutdownNow();
    }

    @Override
    public void close() {
        stop(Duration.ZERO);
    }

    /** Attempts on the wire right now. */
    public synchronized int inFlight() {
        return open.stream().mapToInt(c -> c.tap.inFlight()).sum();
    }

    /** Calls in progress right now (waiting, retrying or on the wire). */
    public int callsInProgress() {
        return calls.size();
    }

    /** How the calls so far ended. */
    public CallTotals totals() {
        Map<CallResult.Kind, Long> snapshot = new EnumMap<>(CallResult.Kind.class);
        totals.forEach((k, v) -> snapshot.put(k, v.sum()));
        return new CallTotals(snapshot);
    }

    private void arrive(Client c) {
        RandomGenerator random = c.random;
        double meanGapNanos = 1e9 / c.spec.callsPerSecond();
        long next = time.nanoTime() + (long) (random.nextDouble() * rampUp.toNanos());
        long sequence = 0;
        while (!stopped) {
            long wait = next - time.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            if (stopped) {
                return;
            }
            Operation op = mix.pick(random);
            String callId = c.spec.id() + "-" + (++sequence);
            HttpRequest request = request(c.spec, op, callId, random);
            SplittableRandom callRandom = c.random.split();
            Thread call = Thread.ofVirtual().name("fleet-call-" + callId).unstarted(() -> call(c, request, op, callId,
                    callRandom));
            calls.add(call);
            call.start();
            next += (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos); // exponential gaps
        }
    }

    private void call(Client c, HttpRequest request, Operation op, String callId, RandomGenerator random) {
        int second = recorder.callStarted();
        CallResult.Kind kind;
        try {
            kind = c.transport.call(request, op, random).kind();
        } catch (InterruptedException e) {
            kind = CallResult.Kind.ABANDONED;
        } catch (RuntimeException e) {
            kind = CallResult.Kind.FAILED;
        }
        c.tap.forget(callId);
        totals.get(kind).increment();
        switch (kind) {
            case SUCCEEDED -> recorder.eventAt(second, Series.SUCCEEDED);
            case LOCALLY_DROPPED -> recorder.eventAt(second, Series.LOCAL_DROPS);
            case BUDGET_EXHAUSTED -> recorder.eventAt(second, Series.BUDGET_EXHAUSTED);
            case QUOTA_EXCEEDED_LOCALLY -> recorder.eventAt(second, Series.LOCAL_QUOTA);
            default -> { }
        }
        calls.remove(Thread.currentThread());
    }

    /**
     * The first attempt's request of one call: a {@code GET /v1/quotes}, or a label buy whose body
     * names the order ({@code "reference"}) and which carries an Idempotency-Key.
     */
    private HttpRequest request(ClientSpec spec, Operation op, String callId, RandomGenerator random) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(edge + op.path()))
                .timeout(ATTEMPT_TIMEOUT)
                .header("Authorization", "Bearer " + spec.apiKey())
                .header(CALL_HEADER, callId);
        if (!op.write()) {
            return b.GET().build();
        }
        String body = String.format("{\"reference\":\"ord_%s\",\"from\":\"%05d\",\"to\":\"%05d\",\"weight_g\":%d,"
                + "\"service\":\"ground\"}", callId, random.nextInt(100_000), random.nextInt(100_000),
                100 + random.nextInt(20_000));
        return b.header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey(random))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /** A version-4-shaped UUID from a seeded source. */
    static String idempotencyKey(RandomGenerator random) {
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

    /** One virtual client: its spec, JDK client, tap, transport and random source (its arrivals' thread). */
    private record Client(ClientSpec spec, HttpClient http, WireTap tap, CallTransport transport,
            SplittableRandom random) {
    }
}
