package dev.sluice.examples.demo.fleet;

import java.net.http.HttpRequest;

/**
 * How one virtual client makes a call, retries included: the seam between the fleet and the HTTP
 * client it uses (a plain retry loop over the JDK client, or the Sluice SDK). One instance per
 * virtual client, used by that client's thread only.
 */
public interface CallTransport extends AutoCloseable {

    /**
     * Makes the call and reports how it ended; never throws for an HTTP or transport failure.
     *
     * @param request the first attempt's request (a write already carries its Idempotency-Key)
     * @param operation what it is, for routes that cost more than 1
     * @throws InterruptedException if the thread is interrupted (the fleet is stopping)
     */
    CallResult call(HttpRequest request, Operation operation) throws InterruptedException;

    /** Releases what this client holds. */
    @Override
    default void close() {
    }

    /** Makes the transport of each virtual client. */
    interface Factory extends AutoCloseable {

        /** The transport of the client {@code spec}, sending through {@code http} (the counted wire). */
        CallTransport create(ClientSpec spec, java.net.http.HttpClient http, java.util.random.RandomGenerator random);

        /** Whether the table should show the SDK's columns (local drops, budget exhaustions). */
        boolean isSdk();

        /** A short name for the report ("plain JDK HttpClient, 3 attempts" or "Sluice SDK"). */
        String description();

        @Override
        default void close() {
        }
    }
}
