package dev.sluice.edge.softlimit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each {@code quota.warning} as one INFO line on the {@code dev.sluice.edge.quota} logger,
 * naming the key by its id ({@link dev.sluice.edge.decision.KeyIds}), never by the key:
 * {@code quota.warning key_id=k3f9a1c2b7d4e plan=free policy=daily used=8000 q=10000
 * reset_at=2026-12-01T00:00:00Z}. Thread-safe; does not block beyond the logging backend.
 */
public final class LoggingQuotaWarningSink implements QuotaWarningSink {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.edge.quota");

    @Override
    public void onQuotaWarning(QuotaWarning w) {
        if (LOG.isInfoEnabled()) {
            LOG.info(line(w));
        }
    }

    /** The line logged for {@code w}. */
    public static String line(QuotaWarning w) {
        return QuotaWarning.TYPE + " key_id=" + w.keyId() + " plan=" + w.plan() + " policy=" + w.policy() + " used="
                + w.used() + " q=" + w.quota() + " reset_at=" + w.windowResetAt();
    }
}
