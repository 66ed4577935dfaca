package dev.sluice.spring.boot;

import dev.sluice.edge.EdgeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Reads the edge's configuration schema (SPEC §3: {@code plans}, {@code keys}, {@code routes},
 * {@code store}, {@code problem}, {@code soft-limit}, {@code anonymous}, the protection sections)
 * from the application's properties under {@code sluice.*}, and hands it to the edge's own reader
 * ({@link EdgeConfig#parse}), so the Spring application and the Netty edge accept exactly the same
 * files and reject the same mistakes with the same messages. The starter's own settings
 * ({@code sluice.enabled}, {@code sluice.key-header}, {@code sluice.clients}) are left out, and so
 * are JVM system properties and environment variables.
 */
final class SluiceConfigSource {

    /** The starter's own keys under {@code sluice.}, not part of the edge's schema. */
    static final Set<String> STARTER_KEYS = Set.of("enabled", "key-header", "clients");

    /**
     * JVM system properties and environment variables are not read: a JVM's {@code -Dsluice.*} flags
     * belong to the process (the test run's {@code sluice.testdata}), not to the application's schema.
     */
    private static final Set<String> IGNORED_SOURCES = Set.of("systemProperties", "systemEnvironment");

    private static final Pattern INDEX = Pattern.compile("^(.*?)\\[(\\d+)]$");

    private SluiceConfigSource() {
    }

    /** Whether the environment configures any plan (the server side is on only then). */
    static boolean hasPlans(ConfigurableEnvironment environment) {
        return !collect(environment, "sluice.plans").isEmpty();
    }

    /**
     * The edge configuration of {@code sluice.*}.
     *
     * @throws dev.sluice.limiter.config.ConfigException every problem, each with its field path
     */
    static EdgeConfig load(ConfigurableEnvironment environment) {
        Map<String, String> flat = collect(environment, "sluice");
        Map<String, Object> tree = new TreeMap<>();
        for (Map.Entry<String, String> e : flat.entrySet()) {
            String path = e.getKey().substring("sluice.".length());
            String top = path.split("[.\\[]", 2)[0];
            if (!STARTER_KEYS.contains(top)) {
                put(tree, path, e.getValue());
            }
        }
        StringBuilder json = new StringBuilder();
        render(tree, json);
        return EdgeConfig.parse("application properties (sluice.*)", json.toString());
    }

    /** Every property named {@code prefix} or under it, the first source winning (Spring's order). */
    private static Map<String, String> collect(ConfigurableEnvironment environment, String prefix) {
        Map<String, String> out = new TreeMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> e) || IGNORED_SOURCES.contains(source.getName())) {
                continue;
            }
            for (String name : e.getPropertyNames()) {
                if ((name.equals(prefix) || name.startsWith(prefix + ".")) && !out.containsKey(name)) {
                    Object v = environment.getProperty(name);
                    if (v != null) {
                        out.put(name, v.toString());
                    }
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> tree, String path, String value) {
        String[] parts = path.split("\\.");
        Object node = tree;
        for (int i = 0; i < parts.length; i++) {
            boolean last = i == parts.length - 1;
            String part = parts[i];
            List<Integer> indices = new ArrayList<>();
            Matcher m;
            while ((m = INDEX.matcher(part)).matches()) {
                indices.add(0, Integer.parseInt(m.group(2)));
                part = m.group(1);
            }
            Map<String, Object> map = (Map<String, Object>) node;
            if (indices.isEmpty()) {
                if (last) {
                    map.put(part, value);
                } else {
                    node = map.computeIfAbsent(part, k -> new TreeMap<String, Object>());
                }
                continue;
            }
            Object list = map.computeIfAbsent(part, k -> new TreeMap<Integer, Object>());
            for (int j = 0; j < indices.size(); j++) {
                TreeMap<Integer, Object> l = (TreeMap<Integer, Object>) list;
                boolean end = j == indices.size() - 1;
                if (end && last) {
                    l.put(indices.get(j), value);
                } else if (end) {
                    list = l.computeIfAbsent(indices.get(j), k -> new TreeMap<String, Object>());
                } else {
                    list = l.computeIfAbsent(indices.get(j), k -> new TreeMap<Integer, Object>());
                }
            }
            node = list;
        }
    }

    @SuppressWarnings("unchecked")
    private static void render(Object node, StringBuilder out) {
        if (node instanceof TreeMap<?, ?> map && !map.isEmpty() && map.firstKey() instanceof Integer) {
            out.append('[');
            boolean first = true;
            for (Object v : map.values()) {
                out.append(first ? "" : ",");
                first = false;
                render(v, out);
            }
            out.append(']');
        } else if (node instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                string(e.getKey(), out);
                out.append(':');
                render(e.getValue(), out);
            }
            out.append('}');
        } else {
            String s = String.valueOf(node);
            if (s.matches("-?\\d+(\\.\\d+)?") || s.equals("true") || s.equals("false")) {
                out.append(s);
            } else {
                string(s, out);
            }
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
