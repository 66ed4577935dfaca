package dev.sluice.examples.demo.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One group of the fleet: clients on one plan, several sharing each key (a customer runs several
 * instances of its application with one key).
 *
 * @param plan the plan name
 * @param keys the keys of this group, in the order clients are given them
 * @param clients how many virtual clients
 * @param callsPerSecondPerClient each client's mean rate
 */
public record Tenancy(String plan, List<String> keys, int clients, double callsPerSecondPerClient) {

    public Tenancy {
        Objects.requireNonNull(plan, "plan");
        keys = List.copyOf(keys);
        if (clients < 0) {
            throw new IllegalArgumentException("clients must be >= 0: " + clients);
        }
        if (clients > 0 && keys.isEmpty()) {
            throw new IllegalArgumentException("a group with clients needs at least one key: " + plan);
        }
    }

    /**
     * The clients of {@code tenancies}, numbered from 0 in order; within a group, client {@code j}
     * holds key {@code j mod keys}, so the clients of a key are spread evenly.
     */
    public static List<ClientSpec> clients(List<Tenancy> tenancies) {
        List<ClientSpec> specs = new ArrayList<>();
        for (Tenancy t : tenancies) {
            for (int j = 0; j < t.clients(); j++) {
                specs.add(new ClientSpec(specs.size(), t.keys().get(j % t.keys().size()), t.plan(),
                        t.callsPerSecondPerClient()));
            }
        }
        return specs;
    }
}
