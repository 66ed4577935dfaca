package dev.sluice.keys.jdbc;

import dev.sluice.keys.KeyChanges;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the edge's key cache current: one connection of its own does {@code LISTEN sluice_keys}; each
 * notification of this store's schema (payload {@code <schema>:<key hash>}, sent by the table's trigger on
 * every insert, update and delete) refreshes that key ({@link KeyChanges#changed}). Notifications are
 * read every 250 ms, so a change shows within a second. When the connection is lost it reconnects every
 * second and then reads every cached key again ({@link KeyChanges#resync}), since notifications sent
 * meanwhile are lost. One daemon thread, {@code sluice-keys-notifications}, ended by {@link #close()}.
 */
final class KeyChangeListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KeyChangeListener.class);
    private static final int POLL_MILLIS = 250;
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final PostgresKeyStore store;
    private final KeyChanges cache;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Connection current;
    private volatile boolean listening;

    KeyChangeListener(PostgresKeyStore store, KeyChanges cache) {
        this.store = store;
        this.cache = cache;
        this.thread = new Thread(this::run, "sluice-keys-notifications");
        this.thread.setDaemon(true);
    }

    /** Starts the thread; returns at once. */
    KeyChangeListener start() {
        thread.start();
        return this;
    }

    /** Whether the listening connection is up now. */
    boolean listening() {
        return listening;
    }

    private void run() {
        boolean warned = false;
        while (running) {
            try (Connection c = store.listenConnection()) {
                current = c;
                store.ensureMigrated();
                String prefix = store.notificationPrefix(c);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + PostgresKeyStore.CHANNEL);
                }
                cache.resync();
                listening = true;
                if (warned) {
                    LOG.warn("key change notifications up again");
                    warned = false;
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                long lastProbe = System.nanoTime();
                while (running) {
                    PGNotification[] ns = pg.getNotifications(POLL_MILLIS);
                    if (ns != null) {
                        for (PGNotification n : ns) {
                            String p = n.getParameter();
                            if (p != null && p.startsWith(prefix)) {
                                cache.changed(p.substring(prefix.length()));
                            }
                        }
                    }
                    if (System.nanoTime() - lastProbe > PROBE_NANOS) {
                        try (Statement s = c.createStatement()) {
                            s.setQueryTimeout(5);
                            s.execute("SELECT 1");
                        }
                        lastProbe = System.nanoTime();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (!running) {
                    return;
                }
                if (!warned) {
                    LOG.warn("key change notifications down ({}); retrying every second, cached keys are read "
                            + "again when they are back", e.getMessage());
                    warned = true;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        Connection c = current;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
