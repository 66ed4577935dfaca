package dev.sluice.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} options of a harness, with typed defaults. */
public final class Args {

    private final Map<String, String> values = new HashMap<>();

    /**
     * @throws IllegalArgumentException if an argument is not a {@code --name value} pair
     */
    public Args(String[] args, int from) {
        for (int i = from; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    public int integer(String name, int fallback) {
        String v = values.get(name);
        return v == null ? fallback : Integer.parseInt(v);
    }

    public String text(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }
}
