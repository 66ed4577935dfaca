package dev.sluice.spring.boot.servlet;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Where a Servlet application's callers put their API key. The default reads
 * {@code Authorization: Bearer <key>} (SPEC §3.4), or the header named by {@code sluice.key-header}
 * ({@code X-API-Key} is common); declare a bean of this type to take it from anywhere else (a query
 * parameter, a client certificate, a session). The key is then looked up in {@code sluice.keys}.
 */
@FunctionalInterface
public interface KeyResolver {

    /** The request's API key, or {@code null} when it carries none (then a non-anonymous route answers 401). */
    String apiKey(HttpServletRequest request);
}
