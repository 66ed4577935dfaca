package dev.sluice.edge.softlimit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each {@code quota.warning} as one INFO line on the {@code dev.sluice.edge.quota} logger,
 * with the key masked: {@code quota.warning key=sk_live_… plan=free policy=daily used=8000 q=10000
 * reset_at=2026-12-01T00:00:00Z}. Thread-safe; does not block beyond the logging backend.
 */
public final class LoggingQuotaWarningSink implements QuotaWarningSink {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.edge.quota");

    @Override
    public void onQuotaWarning(QuotaWarning w) {
        LOG.info("{} key={} plan={} policy={} used={} q={} reset_at={}", QuotaWarning.TYPE, w.maskedKey(),
                w.plan(), w.policy(), w.used(), w.quota(), w.windowResetAt());
    }
}
