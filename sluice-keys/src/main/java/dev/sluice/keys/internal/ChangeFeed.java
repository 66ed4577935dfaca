package dev.sluice.keys.internal;

import dev.sluice.keys.KeyChanges;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that keeps the edge's key cache current from a store's change notifications, whatever
 * carries them (PostgreSQL {@code LISTEN}, Redis publish/subscribe). A subclass runs one
 * {@linkplain #session() session}: connect, subscribe, call {@link #subscribed()} once notifications flow
 * (which reads every cached key again, since those sent while the feed was down are lost), pass each
 * notification to {@link #cache()}, and {@linkplain #probeDue() probe} the connection every 5 s so a
 * server that holds it open but answers nothing is found. When a session ends with an exception the feed
 * is down: one WARN (with the cause) for the whole outage, a new session every second, and one WARN
 * {@code key change notifications up again} when it is back. One daemon thread,
 * {@code sluice-keys-notifications}, ended by {@link #close()}.
 */
public abstract class ChangeFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);
    /** How often a session probes its connection. */
    protected static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long RETRY_MILLIS = 1000;

    private final KeyChanges cache;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean listening;
    private boolean warned; // only the feed's thread reads and writes it
    private long lastProbe;

    protected ChangeFeed(KeyChanges cache) {
        this.cache = cache;
        this.thread = new Thread(this::run, "sluice-keys-notifications");
        this.thread.setDaemon(true);
    }

    /** Starts the thread; returns at once. */
    public final void start() {
        thread.start();
    }

    /** Whether notifications flow now. */
    public boolean listening() {
        return listening;
    }

    /** Where notifications go. */
    protected final KeyChanges cache() {
        return cache;
    }

    /** False once {@link #close()} was called: a session returns when it sees it. */
    protected final boolean running() {
        return running;
    }

    /**
     * One session: returns when {@link #running()} turns false; throws when the connection fails (the feed
     * is then down and a new session starts a second later).
     */
    protected abstract void session() throws Exception;

    /** Closes whatever the current session holds; called from any thread, must not throw. */
    protected abstract void closeSession();

    /** Notifications flow (again): reads every cached key again and says so after an outage. */
    protected final void subscribed() {
        cache.resync();
        listening = true;
        lastProbe = System.nanoTime();
        if (warned) {
            LOG.warn("key change notifications up again");
            warned = false;
        }
    }

    /** The session saw its connection lost without an exception: the feed is down until {@link #subscribed()}. */
    protected final void lost(String why) {
        if (listening && running) {
            listening = false;
            LOG.warn("key change notifications down ({}); reconnecting, cached keys are read again when they are back",
                    why);
            warned = true;
        }
    }

    /** Whether the connection is due a probe now; true once every 5 s. */
    protected final boolean probeDue() {
        long now = System.nanoTime();
        if (now - lastProbe > PROBE_NANOS) {
            lastProbe = now;
            return true;
        }
        return false;
    }

    private void run() {
        while (running) {
            try {
                session();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                listening = false;
                closeSession();
                if (!running) {
                    return;
                }
                if (!warned) {
                    LOG.warn("key change notifications down ({}); retrying every second, cached keys are read again "
                            + "when they are back", e.getMessage(), e);
                    warned = true;
                }
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Stops the thread (waiting up to 2 s for it) and closes the session's connection. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        closeSession();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
