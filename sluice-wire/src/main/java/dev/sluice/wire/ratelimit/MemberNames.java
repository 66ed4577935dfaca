package dev.sluice.wire.ratelimit;

/**
 * Which item values a reader accepts as policy names.
 *
 * <p>Draft-11 names policies with sf-strings ({@code "burst"}) and SPEC §2.1 says a member that is
 * not a String item is skipped. Some published examples (the draft's own, at -10) name them with
 * tokens ({@code quota;q=100;w=1}); {@link #STRINGS_OR_TOKENS} lets a caller that wants to read
 * those anyway do so.
 */
public enum MemberNames {
    /** Only sf-strings name a policy; token-named members are skipped (SPEC §2.1). The default. */
    STRINGS_ONLY,
    /** sf-strings and sf-tokens both name a policy (lenient reading of non-conforming servers). */
    STRINGS_OR_TOKENS
}
