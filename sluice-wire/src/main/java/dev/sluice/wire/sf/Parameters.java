package dev.sluice.wire.sf;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The ordered parameters of an item or inner list (RFC 9651 §3.1.2): keys in first-seen order,
 * each with a bare item value. Setting a key again replaces its value in place, as parsing does
 * for a duplicated key (RFC 9651 §4.2.3.2: the last value wins, the position of the first stays).
 *
 * <p>Lookups are linear: parameter lists are short (a handful of keys), where a scan beats
 * hashing and allocates nothing. Immutable and thread-safe; build with {@link #builder()}.
 */
public final class Parameters {

    /** No parameters. */
    public static final Parameters EMPTY = new Parameters(new String[0], new BareItem[0], 0);

    private final String[] keys;
    private final BareItem[] values;
    private final int size;

    private Parameters(String[] keys, BareItem[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
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

    /** The value at {@code index} (insertion order). */
    public BareItem valueAt(int index) {
        Objects.checkIndex(index, size);
        return values[index];
    }

    /** The value of {@code key}, or {@code null} when absent. */
    public @Nullable BareItem get(String key) {
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

    /** Calls {@code action} for each parameter in order. */
    public void forEach(BiConsumer<String, BareItem> action) {
        for (int i = 0; i < size; i++) {
            action.accept(keys[i], values[i]);
        }
    }

    /** An unmodifiable ordered copy as a map. */
    public Map<String, BareItem> asMap() {
        Map<String, BareItem> map = new LinkedHashMap<>(size * 2);
        forEach(map::put);
        return Collections.unmodifiableMap(map);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Parameters other
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
        StringBuilder sb = new StringBuilder("Parameters[");
        Serializer.appendParameters(sb, this);
        return sb.append(']').toString();
    }

    /** Collects parameters; a repeated key replaces the earlier value in place. Not thread-safe. */
    public static final class Builder {
        private static final String[] NO_KEYS = {};
        private static final BareItem[] NO_VALUES = {};

        private String[] keys = new String[4];
        private BareItem[] values = new BareItem[4];
        private int size;

        private Builder() {
        }

        /**
         * Sets {@code key} to {@code value}.
         *
         * @throws IllegalArgumentException if {@code key} is not a key (RFC 9651 §3.1.2)
         * @throws NullPointerException if an argument is null
         */
        public Builder put(String key, BareItem value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (!Chars.isKey(key)) {
                throw Chars.badKey(key);
            }
            return putTrusted(key, value);
        }

        /** For the parser, which has already checked the key's grammar. */
        Builder putTrusted(String key, BareItem value) {
            for (int i = 0; i < size; i++) {
                if (keys[i].equals(key)) {
                    values[i] = value;
                    return this;
                }
            }
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, Math.max(4, size * 2));
                values = Arrays.copyOf(values, Math.max(4, size * 2));
            }
            keys[size] = key;
            values[size] = value;
            size++;
            return this;
        }

        /** The parameters collected so far; the builder may be reused afterwards. */
        public Parameters build() {
            if (size == 0) {
                return EMPTY;
            }
            return new Parameters(Arrays.copyOf(keys, size), Arrays.copyOf(values, size), size);
        }

        /** For the parser: hands over the arrays without a copy; a reuse of the builder starts from empty. */
        Parameters buildAndRelease() {
            if (size == 0) {
                return EMPTY;
            }
            Parameters p = new Parameters(keys, values, size);
            keys = NO_KEYS; // the arrays belong to the result now: a reuse starts afresh
            values = NO_VALUES;
            size = 0;
            return p;
        }
    }
}
