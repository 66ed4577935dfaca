package dev.sluice.delivery;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An event as the outbox stored it: immutable once enqueued.
 *
 * @param eventId the event's id (shared by every destination the event fans out to)
 * @param destination the destination's name
 * @param type the event type
 * @param idempotencyKey the stable key sent as {@code Idempotency-Key} and {@code webhook-id} on
 *     every attempt, replay included (SPEC §6.1)
 * @param payload the request body
 * @param createdAt when it was enqueued, UTC; the maximum age (§6.5) counts from here
 */
public record Event(
        String eventId, String destination, String type, String idempotencyKey, String payload, Instant createdAt) {

    /**
     * Keys travel in headers and in the Standard Webhooks signed content {@code id.timestamp.body},
     * where a '.' would make the split ambiguous: visible ASCII without '.', 1..255 characters.
     */
    private static final Pattern KEY = Pattern.compile("[!-\\-/-~]{1,255}");
    private static final Pattern TYPE = Pattern.compile("[A-Za-z0-9._:-]{1,200}");

    /**
     * @throws InvalidEventException if the key or type is malformed
     */
    public Event {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(createdAt, "createdAt");
        if (!KEY.matcher(idempotencyKey).matches()) {
            throw new InvalidEventException("idempotency key must be 1..255 visible ASCII characters"
                    + " without '.' or spaces (it is signed as webhook-id): '" + idempotencyKey + "'");
        }
        if (!KEY.matcher(eventId).matches()) {
            throw new InvalidEventException("event id must be 1..255 visible ASCII characters without '.': '"
                    + eventId + "'");
        }
        if (!TYPE.matcher(type).matches()) {
            throw new InvalidEventException("event type must be 1..200 of [A-Za-z0-9._:-]: '" + type + "'");
        }
    }
}
