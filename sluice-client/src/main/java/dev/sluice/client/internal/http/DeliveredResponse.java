package dev.sluice.client.internal.http;

import dev.sluice.client.SluiceResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/** The JDK response with the caller's body unwrapped from its {@link Payload}, and what the call took. */
record DeliveredResponse<T>(HttpResponse<?> raw, T body, HttpRequest request, int attempts, Duration waited,
        long callId, @Nullable String key) implements SluiceResponse<T> {

    @Override
    public Optional<String> idempotencyKey() {
        return Optional.ofNullable(key);
    }

    @Override
    public int statusCode() {
        return raw.statusCode();
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
        return raw.headers();
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return raw.sslSession();
    }

    @Override
    public URI uri() {
        return raw.uri();
    }

    @Override
    public HttpClient.Version version() {
        return raw.version();
    }
}
