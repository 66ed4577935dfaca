package dev.sluice.client.internal.core;

import dev.sluice.client.SluiceException;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientCore;
import dev.sluice.client.core.CoreCall;
import dev.sluice.client.core.Dispatch;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.TimeSource;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The loop a transport runs around one {@link ClientCore} ({@code DefaultSluiceHttpClient} for the
 * JDK client, {@code CallDriver} for the others): it opens calls, polls the core, hands each attempt
 * the core grants to the transport's {@link Starter} (unless the call was cancelled meanwhile), fails the calls the core ends without an attempt,
 * asks a {@link WakeTimer} for the core's next poll, and cancels every open call on {@link #close()}.
 * What an attempt is, and how its answer is read, stays with the transport, which calls
 * {@link #pump()} again once an answer changed the core. Thread-safe: {@link #pump()} may run on any
 * thread, as often as it is called.
 *
 * @param <A> the transport's own record of a call, attached to the core's {@link CoreCall}
 */
public final class CallLoop<A extends CallLoop.Call> implements AutoCloseable {

    /** What the loop needs of a transport's call: its result, and a way to stop its attempt in flight. */
    public interface Call {

        /** The call's result; the loop fails it with what the core decided and cancels it on close. */
        CompletableFuture<?> result();

        /** Stops the attempt in flight, if any: the caller cancelled the call. */
        void cancelAttempt();
    }

    /** Starts one attempt the core granted to a call still open (on the thread that polled). */
    @FunctionalInterface
    public interface Starter<A> {
        void start(CoreCall<A> call);
    }

    private final ClientCore<A> core;
    private final Starter<A> starter;
    private final @Nullable ExecutorScheduler ownedScheduler;
    private final WakeTimer wake;
    private final Set<A> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param core the core this loop drives
     * @param time the monotonic clock the core reads
     * @param scheduler where waits are scheduled; {@code null} for one daemon thread owned (and
     *     stopped on {@link #close()}) by this loop
     * @param starter sends an attempt the core granted
     */
    public CallLoop(ClientCore<A> core, TimeSource time, @Nullable Scheduler scheduler, Starter<A> starter) {
        this.core = core;
        this.starter = starter;
        if (scheduler != null) {
            this.ownedScheduler = null;
            this.wake = new WakeTimer(scheduler, time);
        } else {
            ExecutorScheduler owned = new ExecutorScheduler();
            this.ownedScheduler = owned;
            this.wake = new WakeTimer(owned, time);
        }
    }

    /**
     * Opens {@code call} on the core and polls it. When the call is cancelled, the core forgets it
     * and its attempt in flight is stopped.
     *
     * @param result {@code call}'s own result, typed as the transport hands it back
     * @return {@code result}, or a future failed with the core's {@link SluiceException} when the call
     *     was refused before any attempt, or with an {@link IllegalStateException} once closed
     */
    public <R> CompletableFuture<R> open(CallSpec spec, A call, CompletableFuture<R> result) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
        }
        CoreCall<A> opened;
        try {
            opened = core.open(spec, call);
        } catch (SluiceException e) {
            return CompletableFuture.failedFuture(e);
        }
        open.add(call);
        result.whenComplete((r, t) -> {
            open.remove(call);
            if (result.isCancelled()) {
                core.cancel(opened);
                call.cancelAttempt();
                pump();
            }
        });
        pump();
        return result;
    }

    /** Starts what the core lets start now, fails what it ended, and asks to be woken for what waits. */
    public void pump() {
        if (closed) {
            return;
        }
        Dispatch<A> d = core.poll();
        for (CoreCall<A> call : d.start()) {
            if (call.attachment().result().isDone()) {
                core.cancel(call); // cancelled while it waited
            } else {
                starter.start(call);
            }
        }
        for (Dispatch.Rejection<A> r : d.failed()) {
            r.call().attachment().result().completeExceptionally(r.error());
        }
        if (d.wakeAtNanos().isPresent()) {
            wake.wakeAt(d.wakeAtNanos().getAsLong(), this::pump);
        }
    }

    /** Cancels every open call and stops the pending wake-up and the loop's own thread. */
    @Override
    public void close() {
        closed = true;
        for (A call : open) {
            call.result().cancel(true);
        }
        wake.cancel();
        if (ownedScheduler != null) {
            ownedScheduler.close();
        }
    }
}
