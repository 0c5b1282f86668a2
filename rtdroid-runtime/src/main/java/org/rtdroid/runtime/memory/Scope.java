package org.rtdroid.runtime.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A bounded, pre-allocated off-heap region with a bump-pointer allocator: the runtime's stand-in
 * for RTSJ scoped memory on a stock JVM. Allocation returns an offset (never a new Java object:
 * slicing a segment per allocation would allocate on the heap); data is read and written through
 * the typed accessors, which check the offset against what has been allocated. A release scope is
 * {@link #reset()} after every callback, which invalidates all its offsets.
 *
 * <p>RTSJ's guarantees, the way jRate's CTMemory gives them: allocated memory reads as zero, and
 * allocating takes the same time whatever the size. The region is zeroed when the scope is
 * created, and {@link #reset()} zeroes what the ending release used before the next one may
 * allocate it; {@link #allocate} itself only moves the top. The zeroing costs the resetting thread
 * time proportional to the bytes the release used, after its callback, never inside an allocation.
 *
 * <p>Layout: allocations are 8-byte aligned. Values are stored in native byte order.
 */
public class Scope {
    /** Every allocation starts on this boundary. */
    public static final int ALIGNMENT = 8;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    /** The source of every reset's zeroing: copying from it needs no slice (a slice is a heap object). */
    private static final MemorySegment ZEROS = Arena.global().allocate(64 * 1024, 64);

    private final String name;
    private final String componentName;
    private final ScopeKind kind;
    private final MemorySegment segment;
    private final long capacityBytes;
    private final ScopeOverflowError overflow;
    final ScopeAccessError accessError;
    private long top;
    private long highWaterBytes;
    private long resets;

    /**
     * @param segment the pre-allocated region (its whole size is the bound)
     */
    public Scope(String componentName, ScopeKind kind, MemorySegment segment) {
        this.componentName = componentName;
        this.kind = kind;
        this.segment = segment;
        this.capacityBytes = segment.byteSize();
        this.name = componentName + "/" + kind.name().toLowerCase(java.util.Locale.ROOT);
        this.overflow = new ScopeOverflowError(componentName, kind, capacityBytes);
        this.accessError = new ScopeAccessError(name);
        segment.fill((byte) 0); // whoever allocated the region, its first release reads zeros too
    }

    public String name() { return name; }
    public String componentName() { return componentName; }
    public ScopeKind kind() { return kind; }
    public long capacityBytes() { return capacityBytes; }
    public long usedBytes() { return top; }
    public long remainingBytes() { return capacityBytes - top; }
    /** The most bytes ever in use at once. */
    public long highWaterBytes() { return highWaterBytes; }
    public long resets() { return resets; }

    /** Hook for transfer scopes: who may touch the scope now. */
    void checkAccess() {}

    /** Hook for the immortal scope: whether allocation is still open. */
    void checkAllocation() {}

    /**
     * Bump-allocates {@code bytes} (rounded up to 8) and returns the offset.
     *
     * @throws ScopeOverflowError (pre-allocated) if the scope's bound would be exceeded
     */
    public final long allocate(long bytes) {
        checkAccess();
        checkAllocation();
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size");
        }
        long aligned = (bytes + (ALIGNMENT - 1)) & -ALIGNMENT;
        long at = top;
        if (aligned > capacityBytes - at) {
            throw overflow.record(at, aligned);
        }
        top = at + aligned;
        if (top > highWaterBytes) {
            highWaterBytes = top;
        }
        return at;
    }

    public final long allocateFloats(int count) { return allocate(4L * count); }
    public final long allocateInts(int count) { return allocate(4L * count); }
    public final long allocateLongs(int count) { return allocate(8L * count); }
    public final long allocateDoubles(int count) { return allocate(8L * count); }
    public final long allocateShorts(int count) { return allocate(2L * count); }

    /**
     * Frees everything at once; every offset handed out so far becomes invalid. The bytes in use
     * are zeroed here (O(bytes used), allocation-free), so the next release's allocations read zero.
     */
    public void reset() {
        zero(top);
        top = 0;
        resets++;
    }

    private void zero(long bytes) {
        long chunk = ZEROS.byteSize();
        for (long at = 0; at < bytes; at += chunk) {
            MemorySegment.copy(ZEROS, 0, segment, at, Math.min(chunk, bytes - at));
        }
    }

    private long check(long offset, long size) {
        checkAccess();
        if (offset < 0 || offset > top - size) {
            throw accessError.record(ScopeAccessError.Reason.NOT_ALLOCATED, offset, top);
        }
        return offset;
    }

    public final byte getByte(long offset) { return segment.get(ValueLayout.JAVA_BYTE, check(offset, 1)); }
    public final void putByte(long offset, byte v) { segment.set(ValueLayout.JAVA_BYTE, check(offset, 1), v); }
    public final short getShort(long offset) { return segment.get(SHORT, check(offset, 2)); }
    public final void putShort(long offset, short v) { segment.set(SHORT, check(offset, 2), v); }
    public final int getInt(long offset) { return segment.get(INT, check(offset, 4)); }
    public final void putInt(long offset, int v) { segment.set(INT, check(offset, 4), v); }
    public final long getLong(long offset) { return segment.get(LONG, check(offset, 8)); }
    public final void putLong(long offset, long v) { segment.set(LONG, check(offset, 8), v); }
    public final float getFloat(long offset) { return segment.get(FLOAT, check(offset, 4)); }
    public final void putFloat(long offset, float v) { segment.set(FLOAT, check(offset, 4), v); }
    public final double getDouble(long offset) { return segment.get(DOUBLE, check(offset, 8)); }
    public final void putDouble(long offset, double v) { segment.set(DOUBLE, check(offset, 8), v); }

    /** Element {@code index} of a float array allocated at {@code base}. */
    public final float getFloat(long base, int index) { return getFloat(base + 4L * index); }
    public final void putFloat(long base, int index, float v) { putFloat(base + 4L * index, v); }

    /** Copies {@code count} floats from a heap array into the scope at {@code offset}. */
    public final void copyFrom(float[] src, int srcIndex, long offset, int count) {
        check(offset, 4L * count);
        MemorySegment.copy(src, srcIndex, segment, FLOAT, offset, count);
    }

    /** Copies {@code count} floats out of the scope at {@code offset} into a heap array. */
    public final void copyTo(long offset, float[] dst, int dstIndex, int count) {
        check(offset, 4L * count);
        MemorySegment.copy(segment, FLOAT, offset, dst, dstIndex, count);
    }

    public final void copyFrom(byte[] src, int srcIndex, long offset, int count) {
        check(offset, count);
        MemorySegment.copy(src, srcIndex, segment, ValueLayout.JAVA_BYTE, offset, count);
    }

    public final void copyTo(long offset, byte[] dst, int dstIndex, int count) {
        check(offset, count);
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, dst, dstIndex, count);
    }

    @Override
    public String toString() {
        return name + "[" + top + "/" + capacityBytes + " B]";
    }
}
