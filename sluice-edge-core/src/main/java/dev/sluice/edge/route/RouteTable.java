package dev.sluice.edge.route;

import java.util.List;
import java.util.Objects;

/**
 * The configured routes in order, and the route of last resort. A request takes the <b>first</b>
 * route that covers its method and path; a request no route covers takes {@link #fallback()}
 * (any method, any path, cost 1, critical, proxied, authenticated), so every authenticated request
 * is charged something. Immutable and thread-safe.
 */
public final class RouteTable {

    /** The route of requests no configured route covers; its id is {@code * /**}. */
    public static final Route FALLBACK = Route.of(Route.ANY_METHOD, "/**");

    private final Route[] routes;

    /** A table of {@code routes}, tried in order. */
    public RouteTable(List<Route> routes) {
        this.routes = routes.toArray(new Route[0]);
        for (Route r : this.routes) {
            Objects.requireNonNull(r, "route");
        }
    }

    /** The routes in match order (without the fallback). */
    public List<Route> routes() {
        return List.of(routes);
    }

    /** The route of last resort. */
    public Route fallback() {
        return FALLBACK;
    }

    /**
     * The first route covering the request, else {@link #fallback()}; never {@code null}.
     *
     * @param method the request method, upper case as sent
     * @param path the request path without the query
     */
    public Route match(String method, CharSequence path) {
        for (Route r : routes) {
            if (r.matches(method, path)) {
                return r;
            }
        }
        return FALLBACK;
    }
}
