package dev.sluice.delivery;

import java.util.Objects;

/**
 * An event to enqueue, before the outbox has filled in what the caller left out.
 *
 * <p>{@code idempotencyKey} and {@code eventId} may be {@code null}: the outbox then generates the
 * event id ({@code evt_} + a random UUID) and uses the event id as the idempotency key, so that
 * {@code webhook-id} and {@code Idempotency-Key} carry the same stable value on every attempt
 * (SPEC §6.1). Give your own key when the event has a natural identity
 * ({@code game-8472:purchase:991}): enqueuing the same key for the same destination twice then
 * delivers once.
 *
 * @param destination the destination's name
 * @param type the event type (e.g. {@code purchase.completed}); selects the maximum age (§6.5)
 *     and the redaction paths of dead letters (§6.6)
 * @param payload the request body, sent byte for byte (normally JSON)
 * @param idempotencyKey the stable key, or {@code null} to derive it from the event id
 * @param eventId the event's id, or {@code null} to generate one. One event may go to several
 *     destinations under the same id (one ledger row per destination, regression case R22).
 */
public record NewEvent(String destination, String type, String payload, String idempotencyKey, String eventId) {

    public NewEvent {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(payload, "payload");
    }

    /** An event with a generated id and key. */
    public static NewEvent of(String destination, String type, String payload) {
        return new NewEvent(destination, type, payload, null, null);
    }

    /** The same event with this idempotency key. */
    public NewEvent withIdempotencyKey(String key) {
        return new NewEvent(destination, type, payload, key, eventId);
    }

    /** The same event with this event id. */
    public NewEvent withEventId(String id) {
        return new NewEvent(destination, type, payload, idempotencyKey, id);
    }

    /** The same event for another destination (fan-out keeps the id and key). */
    public NewEvent toDestination(String otherDestination) {
        return new NewEvent(otherDestination, type, payload, idempotencyKey, eventId);
    }
}
