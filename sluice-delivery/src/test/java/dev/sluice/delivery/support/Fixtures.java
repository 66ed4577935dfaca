package dev.sluice.delivery.support;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import java.net.URI;

/** Shared test values. */
public final class Fixtures {

    /** The symmetric key of the Standard Webhooks reference test suite. */
    public static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    private Fixtures() {
    }

    /** A destination that deduplicates, at 100/s with burst 100 (so the bucket does not interfere). */
    public static Destination merchant(String name) {
        return new Destination(name, URI.create("http://127.0.0.1:9/" + name), new Rate(100, 100), SECRET, true);
    }

    public static Destination merchant(String name, Rate rate, boolean idempotent) {
        return new Destination(name, URI.create("http://127.0.0.1:9/" + name), rate, SECRET, idempotent);
    }
}
