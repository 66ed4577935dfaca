package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;

/**
 * Any other 4xx answer (SPEC §4.2): terminal, never retried.
 */
public final class ClientErrorException extends SluiceException {

    public ClientErrorException(String message, int status, RateLimitSnapshot snapshot, int attempts) {
        super(message, null, status, snapshot, attempts);
    }
}
