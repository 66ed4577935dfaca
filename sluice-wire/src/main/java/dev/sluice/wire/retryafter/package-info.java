/**
 * {@code Retry-After} and {@code retry-after-ms}: lenient, overflow-proof reading into a typed
 * {@link dev.sluice.wire.retryafter.RetryAfterHint}, and delay-seconds-only writing
 * (RFC 9110 §10.2.3; SPEC §2.3, §2.4; regression cases R01–R03, R05).
 */
@NullMarked
package dev.sluice.wire.retryafter;

import org.jspecify.annotations.NullMarked;
