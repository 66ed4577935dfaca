package dev.sluice.wire.sf;


/**
 * A Dictionary (RFC 9651 §3.2): ordered keys, each with an {@link Item} or {@link InnerList}.
 * Setting a key again replaces its value in place, as parsing does for a duplicated key (RFC 9651
 * §4.2.2: the last value wins, the position of the first stays).
 *
 * <p>Lookups are linear (field dictionaries are short). Immutable and thread-safe; build with
 * {@link #builder()}.
 */
public final class Dictionary extends KeyedMembers<Member> {

    /** No members; serialises to the empty string (the field is omitted, RFC 9651 §4.1.2). */
    public static final Dictionary EMPTY = new Dictionary(new String[0], new Member[0], 0);

    private Dictionary(String[] keys, Member[] values, int size) {
        super(keys, values, size);
    }

    /** A builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    /** Equal to a dictionary with the same keys and values in the same order. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Dictionary other && sameMembers(other);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "Dictionary[" + StructuredFields.serialize(this) + "]";
    }

    /** Collects members; a repeated key replaces the earlier value in place. Not thread-safe. */
    public static final class Builder extends KeyedMembers.Collector<Member, Dictionary> {

        private Builder() {
            super(new Member[0]);
        }

        @Override
        Dictionary empty() {
            return EMPTY;
        }

        @Override
        Dictionary of(String[] keys, Member[] values, int size) {
            return new Dictionary(keys, values, size);
        }

        /**
         * Sets {@code key} to {@code member}.
         *
         * @throws IllegalArgumentException if {@code key} is not a key (RFC 9651 §3.1.2)
         * @throws NullPointerException if an argument is null
         */
        public Builder put(String key, Member member) {
            checkedPut(key, member);
            return this;
        }

        /** Sets {@code key} to an item without parameters. */
        public Builder put(String key, BareItem value) {
            return put(key, Item.of(value));
        }

        /** For the parser, which has already checked the key's grammar. */
        Builder putTrusted(String key, Member member) {
            trustedPut(key, member);
            return this;
        }
    }
}
