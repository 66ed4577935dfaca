package dev.sluice.delivery;

import java.time.Instant;

/**
 * A destination as the store knows it now: its configuration and whether it is still enabled.
 * A {@code 410 Gone} answer disables a destination (Standard Webhooks: the receiver no longer
 * wants these events); a person re-enables it with {@link Delivery#enableDestination(String)}.
 *
 * @param destination the configuration
 * @param enabled {@code false} after a 410 until re-enabled
 * @param disabledReason why it was disabled, or {@code null}
 * @param updatedAt when the row last changed (UTC)
 */
public record DestinationState(
        Destination destination, boolean enabled, String disabledReason, Instant updatedAt) {
}
