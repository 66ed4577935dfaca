package dev.sluice.redis.internal;

/**
 * Redis Cluster hash tags for the stores' keys: {@code <prefix>{<name>}:…} puts every key of one name
 * (an API key, a provider limit) in one slot, so one script can touch them all. Internal to
 * {@code sluice-redis}, not an API.
 */
public final class HashTags {

    private HashTags() {
    }

    /**
     * {@code name} with {@code % { }} escaped as {@code %25 %7B %7D}, so the tag is exactly the name; the
     * empty name becomes {@code %} (an empty tag would hash the whole key name instead).
     */
    public static String escape(String name) {
        boolean plain = !name.isEmpty();
        for (int i = 0; i < name.length() && plain; i++) {
            char c = name.charAt(i);
            plain = c != '%' && c != '{' && c != '}';
        }
        if (plain) {
            return name;
        }
        if (name.isEmpty()) {
            return "%";
        }
        StringBuilder sb = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case '{' -> sb.append("%7B");
                case '}' -> sb.append("%7D");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** {@code prefix + "{" + escape(name) + "}:"}. */
    public static String tagged(String prefix, String name) {
        return prefix + "{" + escape(name) + "}:";
    }
}
