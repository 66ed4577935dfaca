package dev.sluice.redis.internal;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTopologyException;
import dev.sluice.redis.RedisUrl;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

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

    /**
     * Refuses a key prefix with a brace on a cluster: Redis Cluster hashes a key by its first
     * <code>{…}</code>, so a tag in the prefix would put every key of the store in one slot (one node),
     * or split a script call's keys. Any prefix is fine on one server.
     *
     * @param field the setting's name, as the message shows it
     * @throws RedisTopologyException naming the prefix
     */
    public static void requireUsablePrefix(String field, String prefix, RedisEndpoint endpoint) {
        if (endpoint.topology() == RedisUrl.Topology.CLUSTER && (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0)) {
            throw new RedisTopologyException(field + " \"" + prefix + "\" has a brace: on a Redis Cluster every key "
                    + "would hash by it (one slot for the whole store); use a prefix without { }");
        }
    }

    /** {@code prefix + "{" + escape(name) + "}:"}. */
    public static String tagged(String prefix, String name) {
        return prefix + "{" + escape(name) + "}:";
    }

    /** Hex digits of {@link #credential}: 128 bits of SHA-256. */
    private static final int CREDENTIAL_HEX = 32;

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    });

    /**
     * What stands for a credential (an API key, an {@code Authorization} value) in a Redis key name:
     * {@code s} and the first 32 hex digits (128 bits) of SHA-256 of its UTF-8 bytes, e.g.
     * {@code s6b86b273ff34fce19d6b804eff5a3f57}. Anyone who can list key names ({@code KEYS},
     * {@code SCAN}, {@code MONITOR}) then sees no credential. Plain (unkeyed) SHA-256, so every replica
     * and every version computes the same name without sharing a secret; a short, guessable key can
     * still be tested against it, as against any unkeyed hash. Never contains {@code % { } :}.
     */
    public static String credential(String name) {
        MessageDigest md = SHA256.get();
        md.reset();
        byte[] digest = md.digest(name.getBytes(StandardCharsets.UTF_8));
        return "s" + HexFormat.of().formatHex(digest, 0, CREDENTIAL_HEX / 2);
    }

    /** {@code prefix + "{" + credential(name) + "}:"}: the tag of a credential's keys. */
    public static String taggedCredential(String prefix, String name) {
        return prefix + "{" + credential(name) + "}:";
    }
}
