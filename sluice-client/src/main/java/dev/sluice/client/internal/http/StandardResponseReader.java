package dev.sluice.client.internal.http;

import dev.sluice.client.spi.ResponseReader;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;

/**
 * INTERIM, until the wire module's dialect registry is merged: status and delay-seconds
 * Retry-After only. Replaced by {@code DialectRegistry.standard()}.
 */
final class StandardResponseReader implements ResponseReader {

    static final ResponseReader INSTANCE = new StandardResponseReader();

    @Override
    public RateLimitSnapshot read(ResponseView r, Instant localNow) {
        int s = r.status();
        Outcome o = s == 429 ? Outcome.RATE_LIMITED
                : s == 503 || s == 529 ? Outcome.OVERLOADED
                : s >= 500 ? Outcome.SERVER_ERROR
                : s >= 400 ? Outcome.CLIENT_ERROR : Outcome.OK;
        Duration ra = null;
        String v = r.headers().first("Retry-After").orElse(null);
        if (v != null && v.matches("\\d{1,12}")) {
            ra = Duration.ofSeconds(Long.parseLong(v));
        }
        return new RateLimitSnapshot(s, o, null, ra, r.headers().contains("Age"), null, null, null, null);
    }
}
