package dev.sluice.edge.route;

import java.util.Locale;
import java.util.Optional;

/**
 * How much a route matters when the upstream is short of capacity (SPEC §1, §3.9; the SRE book's
 * "Handling Overload" levels). Declared most critical first: a shedder drops {@link #SHEDDABLE}
 * before {@link #SHEDDABLE_PLUS} before {@link #CRITICAL} before {@link #CRITICAL_PLUS}.
 *
 * <p>Stored per route now; the shedder of SPEC §3.9 (a later stage of the edge pipeline) reads it.
 */
public enum Criticality {
    /** Must not fail: the last to be shed. */
    CRITICAL_PLUS,
    /** The default for user-visible requests. */
    CRITICAL,
    /** Shed before critical traffic; failures are tolerated. */
    SHEDDABLE_PLUS,
    /** The first to be shed (quotes, prefetches, batch). */
    SHEDDABLE;

    /** Whether this level belongs to the reserved critical share (SPEC §3.9). */
    public boolean isCritical() {
        return this == CRITICAL_PLUS || this == CRITICAL;
    }

    /**
     * The level named {@code text}, case-insensitive, with {@code -} or {@code _}
     * ({@code CRITICAL_PLUS}, {@code critical-plus}); empty for anything else.
     */
    public static Optional<Criticality> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String normal = text.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        for (Criticality c : values()) {
            if (c.name().equals(normal)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
