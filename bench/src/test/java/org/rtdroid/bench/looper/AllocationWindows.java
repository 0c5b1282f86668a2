package org.rtdroid.bench.looper;

/**
 * Allocation measured in windows of rounds. Warm-up ends when a whole window allocates nothing:
 * until C2 has compiled the rounds, the interpreter and C1 put on the heap what C2's escape analysis
 * removes, and on a loaded machine the compiler threads lag behind any fixed number of rounds.
 * After a clean warm-up the JIT can still deoptimise once (a branch taken in a new pattern), and
 * deoptimisation re-materialises scalar-replaced objects on the thread: up to three windows are
 * measured and one must be clean. A real per-round allocation shows in every window.
 */
final class AllocationWindows {
    /** One window's allocated bytes. */
    interface Window {
        long bytes() throws Exception;
    }

    private AllocationWindows() {}

    /** Runs warm-up windows until one allocates nothing, at most 30. */
    static void warmUp(Window window) throws Exception {
        long bytes = -1;
        for (int w = 0; w < 30 && bytes != 0; w++) {
            bytes = window.bytes();
        }
    }

    /** Up to three windows until one allocates nothing; each window's bytes go to {@code log}. */
    static long measure(StringBuilder log, Window window) throws Exception {
        long bytes = -1;
        for (int w = 0; w < 3 && bytes != 0; w++) {
            bytes = window.bytes();
            log.append(w == 0 ? "" : ", ").append(bytes);
        }
        return bytes;
    }
}
