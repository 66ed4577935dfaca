package dev.sluice.examples.demo.fleet;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * How one virtual client makes a call, retries included: the seam between the fleet and the HTTP
 * client it uses (the naive loop, the careful retry, or the Sluice SDK). One instance per virtual
 * client; its calls run concurrently (open arrivals), so an implementation is thread-safe.
 */
public interface CallTransport extends AutoCloseable {

    /**
     * Makes the call and reports how it ended; never throws for an HTTP or transport failure.
     *
     * @param request the first attempt's request (a write already carries its Idempotency-Key)
     * @param operation what it is, for routes that cost more than 1
     * @param random this call's own random source (jitter, new keys), used by this call only
     * @throws InterruptedException if the thread is interrupted (the fleet is stopping)
     */
    CallResult call(HttpRequest request, Operation operation, RandomGenerator random) throws InterruptedException;

    /** Completes when the client is ready for its first call (the SDK: its pacer seeded). */
    default CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    /** Releases what this client holds. */
    @Override
    default void close() {
    }

    /** Makes the transport of each virtual client. */
    interface Factory extends AutoCloseable {

        /** The transport of the client {@code spec}, sending through {@code http} (the counted wire). */
        CallTransport create(ClientSpec spec, HttpClient http, RandomGenerator random);

        /** Which of the demo's clients this is. */
        ClientKind kind();

        @Override
        default void close() {
        }

        /** A factory of transports that need only the counted wire ({@code transport.apply(http)}). */
        static Factory of(ClientKind kind, Function<HttpClient, CallTransport> transport) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(transport, "transport");
            return new Factory() {
                @Override
                public CallTransport create(ClientSpec spec, HttpClient http, RandomGenerator random) {
                    return transport.apply(http);
                }

                @Override
                public ClientKind kind() {
                    return kind;
                }
            };
        }
    }
}
