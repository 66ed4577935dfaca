package dev.sluice.client.spi;

import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;

/**
 * Turns one HTTP response into the normalised {@link RateLimitSnapshot} the core classifies and
 * paces from (SPEC §2.6). The default is the wire module's standard dialect registry; a user may
 * pass one with their own dialects registered. Must not throw for any well-formed status.
 */
@FunctionalInterface
public interface ResponseReader {

    /**
     * @param response status, header fields and (for error statuses) the body
     * @param localNow the local wall clock, used only when the response has no {@code Date}
     */
    RateLimitSnapshot read(ResponseView response, Instant localNow);
}
