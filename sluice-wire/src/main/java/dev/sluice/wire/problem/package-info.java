/**
 * RFC 9457 problem details ({@code application/problem+json}), read leniently and written as
 * always-valid JSON, with Sluice's extensions {@code limit}, {@code retry_after_s} and
 * {@code violated-policies} (SPEC §3.4).
 */
@NullMarked
package dev.sluice.wire.problem;

import org.jspecify.annotations.NullMarked;
