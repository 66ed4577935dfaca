package dev.sluice.spring.boot.reactive;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Where a WebFlux application's callers put their API key. The default reads
 * {@code Authorization: Bearer <key>} (SPEC §3.4), or the header named by {@code sluice.key-header}
 * ({@code X-API-Key} is common); declare a bean of this type to take it from anywhere else (a query
 * parameter, a client certificate). The key is then looked up in {@code sluice.keys}. Called on the
 * server's event loop: must not block.
 */
@FunctionalInterface
public interface ReactiveKeyResolver {

    /** The request's API key, or {@code null} when it carries none (then a non-anonymous route answers 401). */
    String apiKey(ServerHttpRequest request);
}
