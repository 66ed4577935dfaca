package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.Tenancy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the demo divides its clients among plans and keys: 60 % on the Free plan, three clients to a
 * key; 10 % on the small-quota Trial plan, two to a key; the rest on Pro, three to a key. Keys are
 * generated ({@code sk_demo_free_001}, ...) and bound by the demo, so any client count works with
 * the plans of {@code examples/shiplane.yaml}.
 *
 * <p>Why these numbers: three Free clients at 4 calls/s each offer about 14 units/s to a key whose
 * burst policy refills 10/s (batches cost 10), so Free keys spend part of every second rate limited;
 * two Trial clients spend a 150-unit daily quota in about 15 s, after which every Trial call is
 * {@code quota_exhausted}; Pro keys stay well under their limit.
 */
final class DemoFleetShape {

    static final String FREE = "free";
    static final String PRO = "pro";
    static final String TRIAL = "trial";

    private DemoFleetShape() {
    }

    /** The groups of a fleet of {@code clients}, each client calling {@code rate} times a second. */
    static List<Tenancy> groups(int clients, double rate) {
        int free = (int) Math.round(clients * 0.6);
        int trial = (int) Math.round(clients * 0.1);
        int pro = clients - free - trial;
        List<Tenancy> groups = new ArrayList<>();
        groups.add(new Tenancy(FREE, keys(FREE, ceilDiv(free, 3)), free, rate));
        groups.add(new Tenancy(TRIAL, keys(TRIAL, ceilDiv(trial, 2)), trial, rate));
        groups.add(new Tenancy(PRO, keys(PRO, ceilDiv(pro, 3)), pro, rate));
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
