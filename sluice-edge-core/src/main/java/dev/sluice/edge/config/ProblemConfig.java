package dev.sluice.edge.config;

import java.util.Objects;

/**
 * The {@code problem} section: how the {@code type} URI of the edge's RFC 9457 problem bodies is
 * formed (SPEC §3.4).
 *
 * <pre>{@code
 * problem:
 *   base-uri: https://docs.shiplane.example   # type = <base-uri>/errors/<code>
 *   types: sluice                             # sluice (default) | iana
 * }</pre>
 *
 * <p>With {@code types: iana} the rate-limit problems use the IANA-registered types of
 * draft-ietf-httpapi-ratelimit-headers-11 ({@code …#quota-exceeded} for both 429 kinds) and the
 * others keep {@code <base-uri>/errors/<code>}.
 *
 * @param baseUri the prefix of every type URI, without a trailing slash
 * @param types which type URIs rate-limit problems carry
 */
public record ProblemConfig(String baseUri, TypeUris types) {

    /** Which family of type URIs the edge writes. */
    public enum TypeUris {
        /** {@code <base-uri>/errors/<code>} for every problem (SPEC §3.4). */
        SLUICE,
        /** The IANA-registered draft-11 types for rate-limit problems (SPEC §3.4 switch). */
        IANA
    }

    /** The defaults: {@code https://sluice.dev/problems}, sluice types. */
    public static final ProblemConfig DEFAULT = new ProblemConfig("https://sluice.dev/problems", TypeUris.SLUICE);

    public ProblemConfig {
        Objects.requireNonNull(baseUri, "baseUri");
        Objects.requireNonNull(types, "types");
        while (baseUri.endsWith("/")) {
            baseUri = baseUri.substring(0, baseUri.length() - 1);
        }
    }
}
