package org.rtdroid.runtime.reflection;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The past timeline (seed 004, section 2.3): what ran, when it was planned to and when it did,
 * in the order it ran. Its intervals are immutable: an entry is written once, by the one thread
 * that runs the jobs it records (an execution engine, a periodic task, a receiver), and read by
 * copy ({@link #read}) from any thread. Bounded and preallocated: {@link OverflowPolicy#OVERWRITE_OLDEST},
 * the oldest entries give way to new ones and {@link #overwritten()} counts them.
 *
 * <p>No lock: each slot carries a stamp (its entry's sequence number + 1, or {@link #WRITING}
 * while the writer fills it), checked before and after a read as in a seqlock, so a reader never
 * delays the writer and never returns a torn entry. Nothing is allocated after construction.
 */
public final class PastTimeline {
    /** Flag: the job's start was delayed by the late end of the previous one (the seed's clobber). */
    public static final int CLOBBERED = 1;
    /** Flag: the job ended after its planned end (its deadline). */
    public static final int LATE = 1 << 1;
    /** Flag: a periodic or sporadic job missed its deadline (a deadline-miss handler was released). */
    public static final int DEADLINE_MISS = 1 << 2;
    /** Flag: the job used more CPU time than its declared cost (a cost-overrun handler was released). */
    public static final int COST_OVERRUN = 1 << 3;
    /** Flag: releases skipped after an overload (no actual interval: begin = end = the skip). */
    public static final int SKIPPED = 1 << 4;
    /** Flag: the job's code threw. */
    public static final int FAILED = 1 << 5;

    private static final int STRIDE = 6;
    private static final int TAG_FLAGS = 0;
    private static final int PLANNED_BEGIN = 1;
    private static final int PLANNED_END = 2;
    private static final int ACTUAL_BEGIN = 3;
    private static final int ACTUAL_END = 4;
    private static final long WRITING = -1;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final String name;
    private final int capacity;
    private final long[] entries;
    /** Per slot: 0 empty, WRITING, or the sequence number + 1 of the entry it holds. */
    private final long[] stamps;
    private volatile long recorded;
    /** Names of the class tags seen (an engine's actions), for traces; a fixed table, no allocation. */
    private final int[] classTags = new int[16];
    private final String[] classNames = new String[16];
    private volatile int classCount;

    /**
     * @param name whose past this is (a component, task or engine), for traces and reports
     * @param capacity entries kept (at least 1)
     */
    public PastTimeline(String name, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("past timeline '" + name + "': capacity " + capacity + " < 1");
        }
        this.name = name;
        this.capacity = capacity;
        this.entries = new long[capacity * STRIDE];
        this.stamps = new long[capacity];
    }

    public String name() { return name; }

    public int capacity() { return capacity; }

    public OverflowPolicy overflowPolicy() { return OverflowPolicy.OVERWRITE_OLDEST; }

    /** Entries recorded since the start: the sequence number the next one gets. */
    public long recorded() { return recorded; }

    /** The oldest sequence number still held. */
    public long oldest() { return Math.max(0, recorded - capacity); }

    /** Entries given way to newer ones ({@link OverflowPolicy#OVERWRITE_OLDEST}). */
    public long overwritten() { return Math.max(0, recorded - capacity); }

    /**
     * Appends one executed job. Only the one thread that runs the jobs calls it. Allocation-free.
     *
     * @return its sequence number
     */
    public long record(int classTag, long plannedBeginNanos, long plannedEndNanos, long actualBeginNanos,
                       long actualEndNanos, int flags) {
        long seq = recorded;
        int slot = (int) (seq % capacity);
        int at = slot * STRIDE;
        LONGS.setOpaque(stamps, slot, WRITING);
        VarHandle.storeStoreFence();
        entries[at + TAG_FLAGS] = ((long) classTag << 32) | (flags & 0xffffffffL);
        entries[at + PLANNED_BEGIN] = plannedBeginNanos;
        entries[at + PLANNED_END] = plannedEndNanos;
        entries[at + ACTUAL_BEGIN] = actualBeginNanos;
        entries[at + ACTUAL_END] = actualEndNanos;
        LONGS.setRelease(stamps, slot, seq + 1);
        recorded = seq + 1;
        return seq;
    }

    /**
     * Copies entry {@code seq} into {@code into}. Allocation-free; never blocks the writer.
     *
     * @return false if it is not recorded yet or was overwritten
     */
    public boolean read(long seq, ExecutedInterval into) {
        if (seq < 0) {
            return false;
        }
        int slot = (int) (seq % capacity);
        int at = slot * STRIDE;
        for (int attempt = 0; attempt < 4; attempt++) {
            long before = (long) LONGS.getAcquire(stamps, slot);
            if (before != seq + 1) {
                if (before == WRITING) {
                    Thread.onSpinWait();
                    continue;
                }
                return false;
            }
            long tagFlags = entries[at + TAG_FLAGS];
            long pb = entries[at + PLANNED_BEGIN];
            long pe = entries[at + PLANNED_END];
            long ab = entries[at + ACTUAL_BEGIN];
            long ae = entries[at + ACTUAL_END];
            VarHandle.loadLoadFence();
            if ((long) LONGS.getOpaque(stamps, slot) != seq + 1) {
                return false;
            }
            into.set(seq, (int) (tagFlags >>> 32), (int) tagFlags, pb, pe, ab, ae);
            return true;
        }
        return false;
    }

    /** Names class {@code tag} (the writer, as it records one; the first name stays; beyond 16 classes, unnamed). */
    public void nameClass(int tag, String name) {
        int n = classCount;
        for (int i = 0; i < n; i++) {
            if (classTags[i] == tag) {
                return;
            }
        }
        if (n < classTags.length) {
            classTags[n] = tag;
            classNames[n] = name;
            classCount = n + 1;
        }
    }

    /** The name of class {@code tag}, or null when none was given. */
    public String className(int tag) {
        int n = classCount;
        for (int i = 0; i < n; i++) {
            if (classTags[i] == tag) {
                return classNames[i];
            }
        }
        return null;
    }

    /** Copies the latest entry into {@code into}. @return false if there is none */
    public boolean latest(ExecutedInterval into) {
        long n = recorded;
        return n > 0 && read(n - 1, into);
    }

    @Override
    public String toString() {
        return "PastTimeline[" + name + ", " + recorded + " recorded, capacity " + capacity + "]";
    }
}
