package dev.sluice.wire.dialect;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;
import java.util.Optional;

/** Builds responses for the dialect tests. */
final class Responses {

    /** The caller's clock in these tests: 18:00 UTC, the moment of SPEC §2.1's example. */
    static final Instant LOCAL_NOW = Instant.parse("2026-11-30T18:00:00Z");

    private Responses() {
    }

    static ResponseView response(int status, String body, String... namesAndValues) {
        return new ResponseView(status, HttpFields.of(namesAndValues), body);
    }

    /** Reads through {@link DialectRegistry#standard()} with {@link #LOCAL_NOW}. */
    static RateLimitSnapshot read(int status, String body, String... namesAndValues) {
        return DialectRegistry.standard().read(response(status, body, namesAndValues), LOCAL_NOW);
    }

    /** Asks one dialect alone. */
    static Optional<DialectReading> readWith(Dialect dialect, int status, String body, String... namesAndValues) {
        return dialect.read(new DialectInput(response(status, body, namesAndValues), LOCAL_NOW));
    }
}
