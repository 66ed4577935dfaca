package dev.sluice.wire.sf;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A Dictionary (RFC 9651 §3.2): ordered keys, each with an {@link Item} or {@link InnerList}.
 * Setting a key again replaces its value in place, as parsing does for a duplicated key (RFC 9651
 * §4.2.2: the last value wins, the position of the first stays).
 *
 * <p>Lookups are linear (field dictionaries are short). Immutable and thread-safe; build with
 * {@link #builder()}.
 */
public final class Dictionary {

    /** No members; serialises to the empty string (the field is omitted, RFC 9651 §4.1.2). */
    public static final Dictionary EMPTY = new Dictionary(new String[0], new Member[0], 0);

    private final String[] keys;
    private final Member[] values;
    private final int size;

    private Dictionary(String[] keys, Member[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    /** A builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The key at {@code index} (insertion order). */
    public String keyAt(int index) {
        Objects.checkIndex(index, size);
        return keys[index];
    }

    /** The member at {@code index} (insertion order). */
    public Member valueAt(int index) {
        Objects.checkIndex(index, size);
        return values[index];
    }

    /** The member of {@code key}, or {@code null} when absent. */
    public @Nullable Member get(String key) {
        for (int i = 0; i < size; i++) {
            if (keys[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    public boolean containsKey(String key) {
        return get(key) != null;
    }

    /** Calls {@code action} for each member in order. */
    public void forEach(BiConsumer<String, Member> action) {
        for (int i = 0; i < size; i++) {
            action.accept(keys[i], values[i]);
        }
    }

    /** An unmodifiable ordered copy as a map. */
    public Map<String, Member> asMap() {
        Map<String, Member> map = new LinkedHashMap<>(size * 2);
        forEach(map::put);
        return Collections.unmodifiableMap(map);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Dictionary other
                && size == other.size
                && Arrays.equals(keys, 0, size, other.keys, 0, size)
                && Arrays.equals(values, 0, size, other.values, 0, size);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < size; i++) {
            h = 31 * h + keys[i].hashCode();
            h = 31 * h + values[i].hashCode();
        }
        return h;
    }

    @Override
    public String toString() {
        return "Dictionary[" + StructuredFields.serialize(this) + "]";
    }

    /** Collects members; a repeated key replaces the earlier value in place. Not thread-safe. */
    public static final class Builder {
        private static final String[] NO_KEYS = {};
        private static final Member[] NO_VALUES = {};

        private String[] keys = new String[4];
        private Member[] values = new Member[4];
        private int size;

        private Builder() {
        }

        /**
         * Sets {@code key} to {@code member}.
         *
         * @throws IllegalArgumentException if {@code key} is not a key (RFC 9651 §3.1.2)
         * @throws NullPointerException if an argument is null
         */
        public Builder put(String key, Member member) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(member, "member");
            if (!Chars.isKey(key)) {
                throw Chars.badKey(key);
            }
            return putTrusted(key, member);
        }

        /** Sets {@code key} to an item without parameters. */
        public Builder put(String key, BareItem value) {
            return put(key, Item.of(value));
        }

        Builder putTrusted(String key, Member member) {
            for (int i = 0; i < size; i++) {
                if (keys[i].equals(key)) {
                    values[i] = member;
                    return this;
                }
            }
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, Math.max(4, size * 2));
                values = Arrays.copyOf(values, Math.max(4, size * 2));
            }
            keys[size] = key;
            values[size] = member;
            size++;
            return this;
        }

        /** The dictionary collected so far; the builder may be reused afterwards. */
        public Dictionary build() {
            if (size == 0) {
                return EMPTY;
            }
            return new Dictionary(Arrays.copyOf(keys, size), Arrays.copyOf(values, size), size);
        }

        Dictionary buildAndRelease() {
            if (size == 0) {
                return EMPTY;
            }
            Dictionary d = new Dictionary(keys, values, size);
            keys = NO_KEYS; // the arrays belong to the result now: a reuse starts afresh
            values = NO_VALUES;
            size = 0;
            return d;
        }
    }
}
