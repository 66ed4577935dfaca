package dev.sluice.edge.softlimit;

/**
 * Where {@code quota.warning} events go (SPEC §3.8): a log line now ({@link LoggingQuotaWarningSink});
 * a webhook through the delivery worker later.
 *
 * <p>Called on an event loop thread, at most once per key, policy and window: an implementation must
 * not block (hand the event to a queue or another thread if delivery can wait on I/O) and must be
 * thread-safe. An exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface QuotaWarningSink {

    /** Takes one event; must not block. */
    void onQuotaWarning(QuotaWarning warning);
}
