package dev.sluice.wire.sf;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Dictionary} and {@link Parameters} share (RFC 9651 §3.1.2, §3.2): keys in first-seen order,
 * each with one value; setting a key again replaces its value in place (the last value wins, the position
 * of the first stays: §4.2.2, §4.2.3.2). Lookups are linear: these lists are short, where a scan beats
 * hashing and allocates nothing. Immutable once built.
 *
 * @param <V> the value type: {@link Member} for a dictionary, {@link BareItem} for parameters
 */
abstract class KeyedMembers<V> {

    private final String[] keys;
    private final V[] values;
    private final int size;

    KeyedMembers(String[] keys, V[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The key at {@code index} (insertion order). @throws IndexOutOfBoundsException outside 0..size-1 */
    public String keyAt(int index) {
        Objects.checkIndex(index, size);
        return keys[index];
    }

    /** The value at {@code index} (insertion order). @throws IndexOutOfBoundsException outside 0..size-1 */
    public V valueAt(int index) {
        Objects.checkIndex(index, size);
        return values[index];
    }

    /** The value of {@code key}, or {@code null} when absent. */
    public @Nullable V get(String key) {
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

    /** Calls {@code action} for each key and value in order. */
    public void forEach(BiConsumer<String, V> action) {
        for (int i = 0; i < size; i++) {
            action.accept(keys[i], values[i]);
        }
    }

    /** An unmodifiable ordered copy as a map. */
    public Map<String, V> asMap() {
        Map<String, V> map = new LinkedHashMap<>(size * 2);
        forEach(map::put);
        return Collections.unmodifiableMap(map);
    }

    /** Whether {@code other} has the same keys and values in the same order (for the subclasses' equals). */
    final boolean sameMembers(KeyedMembers<?> other) {
        return size == other.size
                && Arrays.equals(keys, 0, size, other.keys, 0, size)
                && Arrays.equals(values, 0, size, other.values, 0, size);
    }

    /** Over the keys and values in order; consistent with the subclasses' equals. */
    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < size; i++) {
            h = 31 * h + keys[i].hashCode();
            h = 31 * h + values[i].hashCode();
        }
        return h;
    }

    /**
     * Collects keys and values; a repeated key replaces the earlier value in place. Not thread-safe.
     *
     * @param <V> the value type
     * @param <R> what it builds
     */
    abstract static class Collector<V, R> {
        private static final String[] NO_KEYS = {};

        private final V[] noValues;
        private String[] keys = new String[4];
        private V[] values;
        private int size;

        /** @param noValues an empty array of the value type (the type of every array it makes) */
        Collector(V[] noValues) {
            this.noValues = noValues;
            this.values = Arrays.copyOf(noValues, 4);
        }

        /** What {@link #build} returns for no members. */
        abstract R empty();

        /** The result over these arrays, which it keeps. */
        abstract R of(String[] keys, V[] values, int size);

        /**
         * Sets {@code key} to {@code value}.
         *
         * @throws IllegalArgumentException if {@code key} is not a key (RFC 9651 §3.1.2)
         * @throws NullPointerException if an argument is null
         */
        final void checkedPut(String key, V value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (!Chars.isKey(key)) {
                throw Chars.badKey(key);
            }
            trustedPut(key, value);
        }

        /** For the parser, which has already checked the key's grammar. */
        final void trustedPut(String key, V value) {
            for (int i = 0; i < size; i++) {
                if (keys[i].equals(key)) {
                    values[i] = value;
                    return;
                }
            }
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, Math.max(4, size * 2));
                values = Arrays.copyOf(values, Math.max(4, size * 2));
            }
            keys[size] = key;
            values[size] = value;
            size++;
        }

        /** The members collected so far; the collector may be reused afterwards. */
        public final R build() {
            return size == 0 ? empty() : of(Arrays.copyOf(keys, size), Arrays.copyOf(values, size), size);
        }

        /** For the parser: hands over the arrays without a copy; a reuse starts from empty. */
        final R buildAndRelease() {
            if (size == 0) {
                return empty();
            }
            R r = of(keys, values, size);
            keys = NO_KEYS; // the arrays belong to the result now: a reuse starts afresh
            values = noValues;
            size = 0;
            return r;
        }
    }
}
