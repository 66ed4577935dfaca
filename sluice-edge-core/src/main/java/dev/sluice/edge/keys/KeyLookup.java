package dev.sluice.edge.keys;

import dev.sluice.edge.decision.Caller;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link KeySource} knows of one bearer token: a key, no key, or nothing right now.
 */
public sealed interface KeyLookup permits KeyLookup.Found, KeyLookup.Unknown, KeyLookup.Unavailable {

    /** The one {@link Unknown}: a token the store has no live key for (never created, or revoked). */
    KeyLookup UNKNOWN = new Unknown();

    /**
     * A live key. Holds, besides the stored key, the caller the edge resolved it to under one set of rules,
     * so a cache hit costs no allocation and no plan work (a reload resolves it again, once).
     */
    final class Found implements KeyLookup {
        private final StoredKey key;
        /** the last resolution: the rules object it was made under and its result; a benign race */
        private volatile Resolved resolved;

        public Found(StoredKey key) {
            this.key = Objects.requireNonNull(key, "key");
        }

        public StoredKey key() {
            return key;
        }

        /** The caller resolved under {@code rules}, or {@code null} when it was not (yet). */
        public Caller.ApiKey resolvedUnder(Object rules) {
            Resolved r = resolved;
            return r != null && r.rules == rules ? r.caller : null;
        }

        /** Remembers {@code caller} as this key's resolution under {@code rules}. */
        public void remember(Object rules, Caller.ApiKey caller) {
            resolved = new Resolved(rules, caller);
        }

        private record Resolved(Object rules, Caller.ApiKey caller) {
        }

        @Override
        public String toString() {
            return "Found[" + key.keyId() + " plan=" + key.plan() + "]";
        }
    }

    /** No live key has this token's hash: a 401 {@code invalid_token}, like an unknown key of the file. */
    record Unknown() implements KeyLookup {
    }

    /**
     * The store could not be asked (down, or the lookup budget of unknown tokens is spent): a 503
     * {@code key_store_unavailable} with this {@code Retry-After}, nothing charged.
     *
     * @param retryAfter the back-off to advertise, ≥ 1 s after rounding up
     * @param reason a short reason for the log and the problem's detail
     */
    record Unavailable(Duration retryAfter, String reason) implements KeyLookup {
        public Unavailable {
            Objects.requireNonNull(retryAfter, "retryAfter");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
