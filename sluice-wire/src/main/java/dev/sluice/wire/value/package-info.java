/**
 * Typed readers for the plain (non-structured) values that HTTP rate-limit fields carry:
 * counts and decimal seconds ({@link dev.sluice.wire.value.WireNumbers}), HTTP-dates
 * ({@link dev.sluice.wire.value.HttpDate}), Go-style durations
 * ({@link dev.sluice.wire.value.GoDuration}) and RFC 3339 instants
 * ({@link dev.sluice.wire.value.Rfc3339}); and the members of a field sent as several lines or as
 * one comma-joined line ({@link dev.sluice.wire.value.ListMembers}, RFC 9110 §5.3).
 *
 * <p>Every reader matches the whole value (never a numeric prefix), never throws, never yields a
 * negative duration, and saturates huge values at {@link dev.sluice.wire.value.WireNumbers#MAX_DURATION}.
 */
@NullMarked
package dev.sluice.wire.value;

import org.jspecify.annotations.NullMarked;
