package dev.sluice.client.internal.http;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * The body of one attempt: the caller's own type for a response the caller will get, or the error
 * body as text for a 4xx/5xx, which Sluice reads itself (problem details and vendor error bodies
 * carry limit information; the caller gets a typed error instead of the response).
 */
sealed interface Payload<T> {

    record Delivered<T>(T body) implements Payload<T> {
    }

    record ErrorText<T>(String text) implements Payload<T> {
    }

    /** Wraps the caller's handler: error statuses are read as UTF-8 text, the rest by the caller's handler. */
    static <T> HttpResponse.BodyHandler<Payload<T>> handler(HttpResponse.BodyHandler<T> user) {
        return info -> {
            if (info.statusCode() >= 400) {
                return HttpResponse.BodySubscribers.mapping(
                        HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8), ErrorText::new);
            }
            return HttpResponse.BodySubscribers.mapping(user.apply(info), Delivered::new);
        };
    }
}
