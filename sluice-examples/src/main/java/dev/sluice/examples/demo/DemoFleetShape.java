package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.Tenancy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the demo divides its clients among plans and keys: 90 % on the Free plan, three clients to a
 * key; 10 % on the small-quota Trial plan, two to a key. Keys are generated
 * ({@code sk_demo_free_001}, ...) and bound by the demo, so any client count works with the plans of
 * {@code examples/shiplane.yaml}.
 *
 * <p>Why these numbers: at the default 2.25 calls/s each, a Free key's three clients ask for about
 * 8 units/s (label buys and quotes cost 1, a batch of ten costs 10) of the 10/s its burst policy
 * refills: the fleet runs close to its limit, as the incident's did, and still under the 90 % the
 * SDK paces at. Two Trial clients spend a 60-unit daily quota in about 12 s, before the blip, after
 * which every Trial call is {@code quota_exhausted}.
 */
final class DemoFleetShape {

    static final String FREE = "free";
    static final String TRIAL = "trial";

    private DemoFleetShape() {
    }

    /** The groups of a fleet of {@code clients}, each client calling {@code rate} times a second. */
    static List<Tenancy> groups(int clients, double rate) {
        int trial = (int) Math.round(clients * 0.1);
        int free = clients - trial;
        List<Tenancy> groups = new ArrayList<>();
        groups.add(new Tenancy(FREE, keys(FREE, ceilDiv(free, 3)), free, rate));
        groups.add(new Tenancy(TRIAL, keys(TRIAL, ceilDiv(trial, 2)), trial, rate));
        return groups;
    }

    private static List<String> keys(String plan, int n) {
        List<String> keys = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            keys.add(String.format(Locale.ROOT, "sk_demo_%s_%03d", plan, i));
        }
        return keys;
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
