package dev.sluice.sim.engine;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.DeadlineExceededException;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.ShedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientCore;
import dev.sluice.client.core.CoreCall;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.core.Decision;
import dev.sluice.client.core.Dispatch;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.sim.Headline;
import dev.sluice.sim.SecondRow;
import dev.sluice.sim.scenario.FleetSettings;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ServerSettings;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * One variant's discrete-event simulation: a fleet of SDK instances (one real {@link ClientCore}
 * each, on one {@link ManualTimeSource}) against one {@link SimServer}. Events run in time order,
 * ties in the order they were scheduled; all randomness comes from one seeded
 * {@link SplittableRandom}, split once per client in client order. So the same seed gives the same
 * run. Internal to the simulator; use {@code dev.sluice.sim.Simulation}. Not thread-safe.
 */
public final class World {

    /** Where the simulation's clocks start: any fixed instant will do; a fixed one keeps runs identical. */
    public static final Instant EPOCH = Instant.parse("2026-11-30T12:00:00Z");
    private static final String HOST = "api.simulated:443";
    private static final long SECOND = 1_000_000_000L;

    private final ManualTimeSource time = new ManualTimeSource(EPOCH, 0);
    private final EventQueue events;
    private final FleetSettings fleet;
    private final long durationNanos;
    private final long halfRttNanos;
    private final Recorder recorder;
    private final SimServer server;
    private final Client[] clients;
    private final CallSpec baseSpec;
    private final double incidentEndSecond;

    /**
     * Builds the world of {@code variant}.
     *
     * @param progress told as each simulated second closes; may be {@code null}
     */
    public World(Scenario scenario, Scenario.Variant variant, long seed, java.util.function.IntConsumer progress) {
        this.fleet = variant.fleet();
        ServerSettings serverSettings = variant.server();
        this.durationNanos = scenario.duration().toNanos();
        this.halfRttNanos = serverSettings.rtt().toNanos() / 2;
        int seconds = (int) ((durationNanos + SECOND - 1) / SECOND);
        this.recorder = new Recorder(seconds, scenario.measureFrom().toNanos(), scenario.measureTo().toNanos(),
                progress == null ? null : progress::accept);
        Duration end = serverSettings.lastOutageEnd();
        this.incidentEndSecond = end == null ? Double.NaN : end.toNanos() / 1e9;
        SplittableRandom master = new SplittableRandom(seed);
        this.server = new SimServer(serverSettings, time, master.split(), fleet.clients(), fleet.call().cost());
        FleetSettings.CallShape shape = fleet.call();
        this.baseSpec = new CallSpec(shape.method(), HOST, null, shape.deadline(), shape.priority(), shape.cost(),
                null, true);
        ClientConfig config = fleet.sdk().effective();
        FleetSettings.SdkSettings sdk = fleet.sdk();
        TokenBucketStore sharedBucket = sdk.shared() ? TokenBucketStore.inMemory(0) : null;
        RetryBudgetStore sharedBudget = sdk.shared() ? RetryBudgetStore.inMemory(config.budget()) : null;
        this.clients = new Client[fleet.clients()];
        this.events = new EventQueue(2 * fleet.clients());
        for (int i = 0; i < clients.length; i++) {
            SplittableRandom random = master.split();
            ClientCore<Job> core = null;
            if (sdk.enabled()) {
                int index = i;
                long[] minted = {0};
                CoreEnvironment env = CoreEnvironment.of(time, random.split())
                        .withIdempotencyKeys(() -> "c" + index + "-" + (++minted[0]));
                if (sharedBucket != null) {
                    env = env.withBucket(sharedBucket).withBudget(sharedBudget);
                }
                core = ClientCore.create(config, env);
            }
            clients[i] = new Client(i, core, random);
        }
    }

    /** Runs to the end of the scenario's duration and returns the series and headline figures. */
    public Result run() {
        for (Client c : clients) {
            scheduleFirstArrival(c);
        }
        while (!events.isEmpty()) {
            long at = events.peekAt();
            if (at >= durationNanos) {
                break;
            }
            events.poll();
            if (at > time.nanoTime()) {
                time.advance(Duration.ofNanos(at - time.nanoTime()));
            }
            recorder.at(at);
            fire(at);
        }
        recorder.finish(durationNanos);
        return new Result(recorder.rows(), recorder.headline(incidentEndSecond));
    }

    /** A run's output. */
    public record Result(List<SecondRow> rows, Headline headline) {
    }

    // --- arrivals ---

    private void scheduleFirstArrival(Client c) {
        FleetSettings.Arrivals a = fleet.arrivals();
        long from = a.from().toNanos();
        long first = switch (a.process()) {
            // clients evenly phased, so the fleet's arrivals are evenly spaced too
            case CONSTANT -> from + Math.round(c.index / (double) clients.length / a.ratePerClient() * SECOND);
            case POISSON -> from + exponential(c.random, a.ratePerClient());
            case BURST -> from;
        };
        scheduleArrival(c, first);
    }

    private void scheduleArrival(Client c, long at) {
        FleetSettings.Arrivals a = fleet.arrivals();
        long stop = a.to() == null ? durationNanos : Math.min(durationNanos, a.to().toNanos());
        if (at < stop) {
            events.add(at, ARRIVAL, c.index, null, null, null);
        }
    }

    private void arrive(Client c) {
        FleetSettings.Arrivals a = fleet.arrivals();
        long now = time.nanoTime();
        switch (a.process()) {
            case CONSTANT -> {
                c.arrivals++;
                double k = c.index / (double) clients.length + c.arrivals;
                scheduleArrival(c, a.from().toNanos() + Math.round(k / a.ratePerClient() * SECOND));
                newJob(c, now);
            }
            case POISSON -> {
                scheduleArrival(c, now + Math.max(1, exponential(c.random, a.ratePerClient())));
                newJob(c, now);
            }
            case BURST -> {
                if (a.every() != null) {
                    scheduleArrival(c, now + a.every().toNanos());
                }
                for (int i = 0; i < a.size(); i++) {
                    newJob(c, now);
                }
            }
        }
    }

    private static long exponential(SplittableRandom random, double ratePerSecond) {
        return (long) (-Math.log(1 - random.nextDouble()) / ratePerSecond * SECOND);
    }

    // --- calls ---

    private void newJob(Client c, long now) {
        recorder.call();
        Job job = new Job(c, now);
        call(job);
    }

    /** One call of a job through the client's SDK (or straight to the network for a plain client). */
    private void call(Job job) {
        Client c = job.client;
        job.calls++;
        long now = time.nanoTime();
        if (c.core == null) {
            send(job, null, job.calls > 1);
            return;
        }
        CallSpec spec = baseSpec;
        if (job.idempotencyKey != null && fleet.appRetry().reuseIdempotencyKey()) {
            spec = spec.withIdempotencyKey(job.idempotencyKey);
        }
        try {
            CoreCall<Job> call = c.core.open(spec, job);
            if (job.idempotencyKey == null) {
                job.idempotencyKey = call.idempotencyKey();
            }
            job.waitingSince = now;
            recorder.waitBegins(now);
        } catch (SluiceException e) {
            failed(job, e);
        }
        poll(c);
    }

    private void poll(Client c) {
        Dispatch<Job> d = c.core.poll();
        long now = time.nanoTime();
        List<CoreCall<Job>> start = d.start();
        for (int i = 0; i < start.size(); i++) { // by index: no iterator per poll
            CoreCall<Job> call = start.get(i);
            Job job = call.attachment();
            recorder.waitEnds(now, now - job.waitingSince);
            send(job, call, call.attempts() > 1 || job.calls > 1);
        }
        List<Dispatch.Rejection<Job>> failed = d.failed();
        for (int i = 0; i < failed.size(); i++) {
            Dispatch.Rejection<Job> r = failed.get(i);
            Job job = r.call().attachment();
            recorder.waitEnds(now, now - job.waitingSince);
            failed(job, r.error());
        }
        OptionalLong wake = d.wakeAtNanos();
        if (wake.isPresent()) {
            long at = wake.getAsLong() > now ? wake.getAsLong() : now + 1_000; // never spin at one instant
            if (c.wakeAt <= now || at < c.wakeAt) {
                c.wakeAt = at;
                events.add(at, WAKE, c.index, null, null, null);
            }
        }
    }

    private void send(Job job, CoreCall<Job> call, boolean retry) {
        events.add(time.nanoTime() + halfRttNanos, AT_SERVER, retry ? 1 : 0, job, call, null);
    }

    private void atServer(Job job, CoreCall<Job> call, boolean retry) {
        recorder.request(retry);
        SimServer.Verdict v = server.handle(job.client.index);
        long now = time.nanoTime();
        if (v.admitted()) {
            recorder.accept();
            events.add(now + v.serviceNanos(), SERVICE_DONE, 0, job, call, v.answer());
        } else {
            recorder.reject();
            events.add(now + halfRttNanos, AT_CLIENT, 0, job, call, v.answer());
        }
    }

    private void atClient(Job job, CoreCall<Job> call, Answer.Response answer) {
        long now = time.nanoTime();
        Client c = job.client;
        if (c.core == null) {
            int status = answer.snapshot().status();
            if (status >= 200 && status < 300) {
                recorder.success(now, now - job.createdNanos);
            } else {
                plainFailure(job, status);
            }
            return;
        }
        Decision decision = c.core.onAnswer(call, answer);
        switch (decision) {
            case Decision.Return r -> recorder.success(now, now - job.createdNanos);
            case Decision.Fail f -> failed(job, f.error());
            case Decision.RetryAfter r -> {
                job.waitingSince = now;
                recorder.waitBegins(now);
            }
        }
        poll(c);
    }

    /** A call ended in an error: count a local refusal, then let the application loop decide. */
    private void failed(Job job, SluiceException e) {
        if (e instanceof LocallyThrottledException) {
            recorder.throttled();
        } else if (e instanceof ShedException || (e instanceof DeadlineExceededException && e.attempts() == 0)) {
            recorder.shed();
        }
        appLoop(job, e.status());
    }

    private void plainFailure(Job job, int status) {
        appLoop(job, status);
    }

    private void appLoop(Job job, int status) {
        FleetSettings.AppRetry loop = fleet.appRetry();
        if (job.calls < loop.attempts() && loop.on().contains(status)) {
            double sleepNanos = loop.base().toNanos() * Math.pow(loop.factor(), job.calls - 1);
            if (loop.jitter()) {
                sleepNanos *= job.client.random.nextDouble();
            }
            events.add(time.nanoTime() + (long) sleepNanos, APP_RETRY, 0, job, null, null);
            return;
        }
        recorder.failure(time.nanoTime(), time.nanoTime() - job.createdNanos);
    }

    // --- state ---

    /** One simulated SDK instance. */
    private static final class Client {
        final int index;
        final ClientCore<Job> core;
        final SplittableRandom random;
        long wakeAt = Long.MIN_VALUE;
        long arrivals;

        Client(int index, ClientCore<Job> core, SplittableRandom random) {
            this.index = index;
            this.core = core;
            this.random = random;
        }
    }

    /** One unit of the application's work: a call, and the application's re-calls of it. */
    private static final class Job {
        final Client client;
        final long createdNanos;
        int calls;
        String idempotencyKey;
        long waitingSince;

        Job(Client client, long createdNanos) {
            this.client = client;
            this.createdNanos = createdNanos;
        }
    }

    // --- events (kept in the primitive EventQueue: time order, ties in the order scheduled) ---

    private static final byte ARRIVAL = 0;
    private static final byte WAKE = 1;
    private static final byte AT_SERVER = 2;
    private static final byte SERVICE_DONE = 3;
    private static final byte AT_CLIENT = 4;
    private static final byte APP_RETRY = 5;

    /** Runs the event {@link EventQueue#poll} just took, due at {@code at}. */
    @SuppressWarnings("unchecked")
    private void fire(long at) {
        switch (events.kind()) {
            case ARRIVAL -> arrive(clients[events.intArg()]);
            case WAKE -> {
                Client client = clients[events.intArg()];
                if (client.wakeAt == at) {
                    client.wakeAt = Long.MIN_VALUE;
                }
                poll(client);
            }
            case AT_SERVER -> atServer((Job) events.ref0(), (CoreCall<Job>) events.ref1(), events.intArg() != 0);
            case SERVICE_DONE -> {
                server.done();
                events.add(at + halfRttNanos, AT_CLIENT, 0, events.ref0(), events.ref1(), events.ref2());
            }
            case AT_CLIENT -> atClient((Job) events.ref0(), (CoreCall<Job>) events.ref1(),
                    (Answer.Response) events.ref2());
            case APP_RETRY -> call((Job) events.ref0());
            default -> throw new IllegalStateException("unknown event kind " + events.kind());
        }
    }
}
