package dev.sluice.edge.decision;

import dev.sluice.edge.route.Route;
import dev.sluice.limiter.Costs;
import java.util.Objects;

/**
 * A request the edge has identified and priced, on its way through the decision stages: the head,
 * its route, who it is charged to, and what it costs (SPEC §3.1, §3.10).
 *
 * @param head the request head
 * @param route the matched route
 * @param caller the API key or anonymous client
 * @param costs the route cost and the {@code Content-Length} (0 without a body)
 */
public record EdgeRequest(RequestHead head, Route route, Caller caller, Costs costs) {

    public EdgeRequest {
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(costs, "costs");
    }

    /** The key class for metrics: the plan's name. */
    public String keyClass() {
        return caller.plan().name();
    }
}
