package org.rtdroid.logic.papabench;

/**
 * jPapaBench's memory workload (dissertation 3.8.3.2), the noise its benchmarks run beside the
 * app in both cells: it "periodically allocates a 2MB byte array, then de-allocates every other
 * element, and finally deallocates the array". The 2 MB of bytes is held in
 * {@value #ELEMENT_BYTES}-byte elements so that every other one can be dropped: 2 MB a period,
 * where the fall detection's workload allocates about 12.5 MB (its 2.5 MB array and 655,360
 * Integer objects). The seed: "the RTGC has enough slack time to keep up with" it; at the fall
 * detection's rate 30 threads allocate about 2 GB/s, which no collector on one CPU keeps up with.
 * It allocates by design (the one class here that does) and runs only on noise threads, never on
 * an app's real-time path.
 */
public final class MemoryNoise {
    /** The period jPapaBench allocates at. */
    public static final long PERIOD_MILLIS = 200;
    public static final int ELEMENT_BYTES = 1024;
    public static final int ELEMENTS = 2 * 1024 * 1024 / ELEMENT_BYTES;

    /** The sink that keeps the JIT from proving the allocations dead. */
    private static volatile Object sink;

    private MemoryNoise() {}

    /** One period: allocate the array and its elements, drop every other element, then the array. */
    public static void fragmentOnce() {
        byte[][] a = new byte[ELEMENTS][];
        for (int j = 0; j < a.length; j++) {
            a[j] = new byte[ELEMENT_BYTES];
            a[j][j % ELEMENT_BYTES] = (byte) j;
        }
        for (int j = 0; j < a.length; j += 2) {
            a[j] = null;
        }
        sink = a;
        sink = null;
    }
}
