package dev.sluice.client.internal.core;

import dev.sluice.client.transport.TransportFailures;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The attempts of one blocking call, handed to the thread that made it. The core grants an attempt on
 * whichever thread polls; the transport hands it over here, and the caller sends it itself, so a call
 * the core grants at once costs no thread hand-off and a caller only ever waits for its own call.
 * Thread-safe: any thread may {@link #add}; one thread runs {@link #runUntilDone}.
 */
public final class Handoff {

    private static final Runnable WAKE = () -> { };

    private final BlockingQueue<Runnable> attempts = new LinkedBlockingQueue<>();

    /** Hands {@code attempt} to the caller's thread. */
    public void add(Runnable attempt) {
        attempts.add(attempt);
    }

    /**
     * Runs the attempts handed over, on this thread, until {@code result} is done, then those handed over
     * as it ended (they find the call done and are discarded).
     *
     * @return {@code result}'s value
     * @throws IOException what the call failed with when it is an {@link IOException}; any other checked
     *     failure wrapped in one (a runtime exception or error is thrown as it is)
     * @throws InterruptedException if this thread is interrupted while it waits; the call is cancelled
     * @throws java.util.concurrent.CancellationException if the call was cancelled
     */
    public <R> R runUntilDone(CompletableFuture<R> result) throws IOException, InterruptedException {
        result.whenComplete((r, t) -> attempts.add(WAKE));
        try {
            while (!result.isDone()) {
                attempts.take().run();
            }
            for (Runnable late; (late = attempts.poll()) != null; ) {
                late.run();
            }
            return result.get();
        } catch (InterruptedException e) {
            result.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable c = TransportFailures.unwrap(e);
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException(c);
        }
    }
}
