package dev.sluice.edge.internal;

import java.util.ArrayDeque;

/**
 * Bounds the streams of one HTTP/2 connection that hold, or are acquiring, an upstream connection
 * ({@code listen.max-upstream-streams-per-connection}): without it one connection with 256 open streams that
 * never finish their bodies (or never open their flow-control window) takes every pooled upstream connection of
 * its event loop. Streams beyond the bound wait here in arrival order, each for as long as a pooled connection
 * may take ({@code upstream.connect-timeout}), while the connection's other streams go on.
 *
 * <p>Event-loop only: every stream of a connection runs on the connection's loop.
 */
final class UpstreamStreamGate {

    private final int max;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int held;

    UpstreamStreamGate(int max) {
        this.max = max;
    }

    /**
     * Takes a place when one is free (true); otherwise queues {@code onEntered}, which runs once a place is
     * given to it (it then holds the place), and returns false.
     */
    boolean enter(Runnable onEntered) {
        if (held < max) {
            held++;
            return true;
        }
        waiting.add(onEntered);
        return false;
    }

    /** Gives a place back: the first waiter, if any, takes it. */
    void leave() {
        Runnable next = waiting.poll();
        if (next == null) {
            held--;
            return;
        }
        next.run(); // the place passes on
    }

    /** A waiter gives up (its request ended); no effect when it is not waiting. */
    void cancel(Runnable onEntered) {
        waiting.remove(onEntered);
    }

    /** Places held now. */
    int held() {
        return held;
    }

    /** Streams waiting for a place. */
    int waiting() {
        return waiting.size();
    }
}
