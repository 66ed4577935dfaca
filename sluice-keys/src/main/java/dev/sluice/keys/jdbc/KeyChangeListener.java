package dev.sluice.keys.jdbc;

import dev.sluice.keys.KeyChanges;
import dev.sluice.keys.internal.ChangeFeed;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Keeps the edge's key cache current: one connection of its own does {@code LISTEN sluice_keys}; each
 * notification of this store's schema (payload {@code <schema>:<key hash>}, sent by the table's trigger on
 * every insert, update and delete) refreshes that key ({@link KeyChanges#changed}). Notifications are
 * read every 250 ms, so a change shows within a second; a {@code SELECT 1} every 5 s finds a server that
 * holds the connection open but answers nothing. Reconnecting, the resync after an outage and the log
 * lines are {@link ChangeFeed}'s.
 */
final class KeyChangeListener extends ChangeFeed {

    private static final int POLL_MILLIS = 250;

    private final PostgresKeyStore store;
    private volatile Connection current;

    KeyChangeListener(PostgresKeyStore store, KeyChanges cache) {
        super(cache);
        this.store = store;
    }

    @Override
    protected void session() throws SQLException {
        try (Connection c = store.listenConnection()) {
            current = c;
            store.ensureMigrated();
            String prefix = store.notificationPrefix(c);
            try (Statement s = c.createStatement()) {
                s.execute("LISTEN " + PostgresKeyStore.CHANNEL);
            }
            subscribed();
            PGConnection pg = c.unwrap(PGConnection.class);
            while (running()) {
                PGNotification[] ns = pg.getNotifications(POLL_MILLIS);
                if (ns != null) {
                    for (PGNotification n : ns) {
                        String p = n.getParameter();
                        if (p != null && p.startsWith(prefix)) {
                            cache().changed(p.substring(prefix.length()));
                        }
                    }
                }
                if (probeDue()) {
                    try (Statement s = c.createStatement()) {
                        s.setQueryTimeout(5);
                        s.execute("SELECT 1");
                    }
                }
            }
        }
    }

    @Override
    protected void closeSession() {
        Connection c = current;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
    }
}
