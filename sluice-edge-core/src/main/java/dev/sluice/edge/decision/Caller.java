package dev.sluice.edge.decision;

import dev.sluice.limiter.Plan;
import dev.sluice.limiter.config.KeyBinding;
import java.util.Objects;

/** Who a request is charged to: an authenticated API key, or a client IP on an anonymous route. */
public sealed interface Caller permits Caller.ApiKey, Caller.Anonymous {

    /** The key the limiter state is stored under. */
    String limiterKey();

    /** The plan the request is decided under. */
    Plan plan();

    /**
     * An authenticated key (SPEC §3.1): every response carries its rate-limit fields (SPEC §2.2).
     *
     * @param binding the key's binding (plan with overrides)
     * @param keyId the key's id for logs and events ({@link KeyIds}); the raw key never appears there
     */
    record ApiKey(KeyBinding binding, String keyId) implements Caller {
        public ApiKey {
            Objects.requireNonNull(binding, "binding");
            Objects.requireNonNull(keyId, "keyId");
        }

        /** A key with its id under the default secret. */
        public ApiKey(KeyBinding binding) {
            this(binding, KeyIds.DEFAULT.id(binding.key()));
        }

        @Override
        public String limiterKey() {
            return binding.key();
        }

        @Override
        public Plan plan() {
            return binding.plan();
        }
    }

    /**
     * A client on an anonymous route (SPEC §3.7): limited per IP and route, told nothing.
     *
     * @param limiterKey {@code "ip <route id> <address>"}: the space cannot occur in a bearer token,
     *     so it never collides with an API key's state
     * @param plan the anonymous plan
     */
    record Anonymous(String limiterKey, Plan plan) implements Caller {
        public Anonymous {
            Objects.requireNonNull(limiterKey, "limiterKey");
            Objects.requireNonNull(plan, "plan");
        }
    }
}
