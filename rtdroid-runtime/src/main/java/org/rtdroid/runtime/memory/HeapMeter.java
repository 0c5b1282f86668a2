package org.rtdroid.runtime.memory;

import java.lang.management.ManagementFactory;

/**
 * Java heap bytes allocated by the calling thread, from HotSpot's per-thread counters
 * ({@code com.sun.management.ThreadMXBean}). Used to hold a release to its declared bound: scoped
 * memory cannot stop {@code new}, so the runtime measures what a release put on the heap.
 */
public final class HeapMeter {
    private static final com.sun.management.ThreadMXBean BEAN = init();

    private HeapMeter() {}

    private static com.sun.management.ThreadMXBean init() {
        java.lang.management.ThreadMXBean b = ManagementFactory.getThreadMXBean();
        if (b instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()) {
            if (!sun.isThreadAllocatedMemoryEnabled()) {
                sun.setThreadAllocatedMemoryEnabled(true);
            }
            return sun;
        }
        return null;
    }

    /** @return whether this JVM can measure per-thread allocation */
    public static boolean supported() { return BEAN != null; }

    /** Bytes the calling thread allocated on the heap since it started (-1 if unsupported). */
    public static long currentThreadAllocatedBytes() {
        return BEAN == null ? -1 : BEAN.getCurrentThreadAllocatedBytes();
    }

    /** Bytes thread {@code threadId} allocated since it started (-1 if unsupported or gone). */
    public static long threadAllocatedBytes(long threadId) {
        return BEAN == null ? -1 : BEAN.getThreadAllocatedBytes(threadId);
    }
}
