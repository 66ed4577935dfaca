package dev.sluice.wire.sf;


/**
 * The ordered parameters of an item or inner list (RFC 9651 §3.1.2): keys in first-seen order,
 * each with a bare item value. Setting a key again replaces its value in place, as parsing does
 * for a duplicated key (RFC 9651 §4.2.3.2: the last value wins, the position of the first stays).
 *
 * <p>Lookups are linear: parameter lists are short (a handful of keys), where a scan beats
 * hashing and allocates nothing. Immutable and thread-safe; build with {@link #builder()}.
 */
public final class Parameters extends KeyedMembers<BareItem> {

    /** No parameters. */
    public static final Parameters EMPTY = new Parameters(new String[0], new BareItem[0], 0);

    private Parameters(String[] keys, BareItem[] values, int size) {
        super(keys, values, size);
    }

    /** A builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    /** One parameter. @throws IllegalArgumentException if {@code key} is not a valid key */
    public static Parameters of(String key, BareItem value) {
        return builder().put(key, value).build();
    }

    /** Two parameters, in order. @throws IllegalArgumentException if a key is not a valid key */
    public static Parameters of(String k1, BareItem v1, String k2, BareItem v2) {
        return builder().put(k1, v1).put(k2, v2).build();
    }

    /** Equal to parameters with the same keys and values in the same order. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Parameters other && sameMembers(other);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Parameters[");
        Serializer.appendParameters(sb, this);
        return sb.append(']').toString();
    }

    /** Collects parameters; a repeated key replaces the earlier value in place. Not thread-safe. */
    public static final class Builder extends KeyedMembers.Collector<BareItem, Parameters> {

        private Builder() {
            super(new BareItem[0]);
        }

        @Override
        Parameters empty() {
            return EMPTY;
        }

        @Override
        Parameters of(String[] keys, BareItem[] values, int size) {
            return new Parameters(keys, values, size);
        }

        /**
         * Sets {@code key} to {@code value}.
         *
         * @throws IllegalArgumentException if {@code key} is not a key (RFC 9651 §3.1.2)
         * @throws NullPointerException if an argument is null
         */
        public Builder put(String key, BareItem value) {
            checkedPut(key, value);
            return this;
        }

        /** For the parser, which has already checked the key's grammar. */
        Builder putTrusted(String key, BareItem value) {
            trustedPut(key, value);
            return this;
        }
    }
}
