package org.rtdroid.runtime.channel;

/**
 * A bounded queue of slot indices kept in delivery order: highest priority first, then oldest
 * first (sequence number). Insertion is O(n) over small, pre-allocated arrays; nothing allocates.
 * Not thread-safe: its channel's lock guards it.
 */
final class SlotQueue {
    private final int[] slots;
    private final int[] priorities;
    private final long[] seqs;
    private int size;

    SlotQueue(int capacity) {
        slots = new int[capacity];
        priorities = new int[capacity];
        seqs = new long[capacity];
    }

    int size() { return size; }
    boolean isEmpty() { return size == 0; }

    void insert(int slot, int priority, long seq) {
        int i = size;
        // Find the first position whose priority is lower than ours (stable among equals).
        while (i > 0 && priorities[i - 1] < priority) {
            i--;
        }
        System.arraycopy(slots, i, slots, i + 1, size - i);
        System.arraycopy(priorities, i, priorities, i + 1, size - i);
        System.arraycopy(seqs, i, seqs, i + 1, size - i);
        slots[i] = slot;
        priorities[i] = priority;
        seqs[i] = seq;
        size++;
    }

    /** Priority of the head, or -1 if empty. */
    int headPriority() { return size == 0 ? -1 : priorities[0]; }

    long headSeq() { return size == 0 ? Long.MAX_VALUE : seqs[0]; }

    int pollHead() {
        int s = slots[0];
        removeAt(0);
        return s;
    }

    /** Position of the lowest-priority entry, the oldest among equals; -1 if empty. */
    int lowestOldestPosition() {
        if (size == 0) {
            return -1;
        }
        int low = priorities[size - 1];
        int i = size - 1;
        while (i > 0 && priorities[i - 1] == low) {
            i--;
        }
        return i;
    }

    /** Position of the oldest entry whatever its priority; -1 if empty. */
    int oldestPosition() {
        int best = -1;
        for (int i = 0; i < size; i++) {
            if (best < 0 || seqs[i] < seqs[best]) {
                best = i;
            }
        }
        return best;
    }

    int slotAt(int pos) { return slots[pos]; }
    long seqAt(int pos) { return seqs[pos]; }
    int priorityAt(int pos) { return priorities[pos]; }

    /** Removes the entry holding {@code slot}; @return whether it was present */
    boolean removeSlot(int slot) {
        for (int i = 0; i < size; i++) {
            if (slots[i] == slot) {
                removeAt(i);
                return true;
            }
        }
        return false;
    }

    int removeAt(int pos) {
        int s = slots[pos];
        int tail = size - pos - 1;
        System.arraycopy(slots, pos + 1, slots, pos, tail);
        System.arraycopy(priorities, pos + 1, priorities, pos, tail);
        System.arraycopy(seqs, pos + 1, seqs, pos, tail);
        size--;
        return s;
    }
}
