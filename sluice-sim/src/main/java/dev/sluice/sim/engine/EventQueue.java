package dev.sluice.sim.engine;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * The simulator's pending events in time order, ties in the order they were added: a binary
 * min-heap over parallel primitive arrays keyed by {@code (time, sequence)}, so ordering compares
 * two {@code long}s in place and never touches an event object (a {@code PriorityQueue} of boxed
 * events was a quarter of a 10,000-client run). Each entry carries an event kind, an {@code int}
 * and up to three object references, kept in slots that are recycled once the event is taken.
 *
 * <p>{@link #poll} moves the head into the "current" fields ({@link #kind()}, {@link #at()}, ...),
 * which stay valid until the next {@code poll}. Not thread-safe.
 */
final class EventQueue {

    // the heap: position -> (time, sequence, slot)
    private long[] heapAt;
    private long[] heapSeq;
    private int[] heapSlot;
    private int size;
    private long nextSeq;

    // the payloads, by slot
    private byte[] kinds;
    private int[] ints;
    private Object[] refs; // three per slot
    private int[] free; // a stack of unused slots
    private int freeCount;
    private int slotsUsed;

    // the head taken by the last poll
    private byte kind;
    private long at;
    private int intArg;
    private Object ref0;
    private Object ref1;
    private Object ref2;

    EventQueue(int capacity) {
        int c = Math.max(16, capacity);
        heapAt = new long[c];
        heapSeq = new long[c];
        heapSlot = new int[c];
        kinds = new byte[c];
        ints = new int[c];
        refs = new Object[3 * c];
        free = new int[c];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The time of the earliest event; the queue must not be empty. */
    long peekAt() {
        if (size == 0) {
            throw new NoSuchElementException();
        }
        return heapAt[0];
    }

    /** Adds an event at {@code time}, after every event already added at the same time. */
    void add(long time, byte eventKind, int i, Object a, Object b, Object c) {
        int slot = takeSlot();
        kinds[slot] = eventKind;
        ints[slot] = i;
        refs[3 * slot] = a;
        refs[3 * slot + 1] = b;
        refs[3 * slot + 2] = c;
        if (size == heapAt.length) {
            int n = size * 2;
            heapAt = Arrays.copyOf(heapAt, n);
            heapSeq = Arrays.copyOf(heapSeq, n);
            heapSlot = Arrays.copyOf(heapSlot, n);
        }
        siftUp(size++, time, nextSeq++, slot);
    }

    /** Removes the earliest event and makes it the current one. */
    void poll() {
        if (size == 0) {
            throw new NoSuchElementException();
        }
        int slot = heapSlot[0];
        at = heapAt[0];
        kind = kinds[slot];
        intArg = ints[slot];
        ref0 = refs[3 * slot];
        ref1 = refs[3 * slot + 1];
        ref2 = refs[3 * slot + 2];
        refs[3 * slot] = null;
        refs[3 * slot + 1] = null;
        refs[3 * slot + 2] = null;
        free[freeCount++] = slot;
        int last = --size;
        if (last > 0) {
            siftDown(0, heapAt[last], heapSeq[last], heapSlot[last]);
        }
    }

    byte kind() {
        return kind;
    }

    long at() {
        return at;
    }

    int intArg() {
        return intArg;
    }

    Object ref0() {
        return ref0;
    }

    Object ref1() {
        return ref1;
    }

    Object ref2() {
        return ref2;
    }

    private int takeSlot() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (slotsUsed == kinds.length) {
            int n = slotsUsed * 2;
            kinds = Arrays.copyOf(kinds, n);
            ints = Arrays.copyOf(ints, n);
            refs = Arrays.copyOf(refs, 3 * n);
            free = Arrays.copyOf(free, n);
        }
        return slotsUsed++;
    }

    private static boolean before(long at1, long seq1, long at2, long seq2) {
        return at1 != at2 ? at1 < at2 : seq1 < seq2;
    }

    private void siftUp(int pos, long t, long s, int slot) {
        while (pos > 0) {
            int parent = (pos - 1) >>> 1;
            if (!before(t, s, heapAt[parent], heapSeq[parent])) {
                break;
            }
            heapAt[pos] = heapAt[parent];
            heapSeq[pos] = heapSeq[parent];
            heapSlot[pos] = heapSlot[parent];
            pos = parent;
        }
        heapAt[pos] = t;
        heapSeq[pos] = s;
        heapSlot[pos] = slot;
    }

    private void siftDown(int pos, long t, long s, int slot) {
        int half = size >>> 1;
        while (pos < half) {
            int child = 2 * pos + 1;
            int right = child + 1;
            if (right < size && before(heapAt[right], heapSeq[right], heapAt[child], heapSeq[child])) {
                child = right;
            }
            if (!before(heapAt[child], heapSeq[child], t, s)) {
                break;
            }
            heapAt[pos] = heapAt[child];
            heapSeq[pos] = heapSeq[child];
            heapSlot[pos] = heapSlot[child];
            pos = child;
        }
        heapAt[pos] = t;
        heapSeq[pos] = s;
        heapSlot[pos] = slot;
    }
}
