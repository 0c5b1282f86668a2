package org.rtdroid.bench.rtjperf;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import org.rtdroid.json.JsonWriter;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.memory.ScopeKind;

/**
 * RTJPerf's allocation time test (seed 003, Figs. 10-15): the time one allocation of a given size
 * takes, for the Java heap ({@code new byte[size]}: the JVM zeroes it there, in proportion to the
 * size) and for the runtime's scoped memory ({@link Scope#allocate}: zeroed at the previous
 * release's reset, so only the top moves). Each sample is the two clock reads around one
 * allocation; the reset after it (the zeroing that scoped memory moved out of the allocation) is
 * timed too and reported as its own row, so the cost moved is shown, not hidden.
 */
final class Allocation {
    static final int[] SIZES = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    private static final int WARMUP = 20_000;
    /** Keeps each heap array reachable past the clock read, so the JIT cannot drop the allocation. */
    private static final Object[] SINK = new Object[64];

    private Allocation() {}

    static void run(int samples, PrintStream rows, PrintStream progress, Watchdog watchdog) {
        try (Arena arena = Arena.ofConfined()) {
            Scope scope = new Scope("rtjperf", ScopeKind.RELEASE, arena.allocate(SIZES[SIZES.length - 1] + 64L, 64));
            Samples scoped = new Samples(samples);
            Samples reset = new Samples(samples);
            Samples heap = new Samples(samples);
            // warm-up: the JIT compiles both paths at every size before anything is measured
            for (int i = 0; i < WARMUP; i++) {
                int size = SIZES[i % SIZES.length];
                scopedOnce(scope, size, null, null);
                heapOnce(size, i, null);
            }
            for (int size : SIZES) {
                progress.println("alloc: " + size + " B x " + samples + " (heap, scoped)");
                watchdog.phase("alloc " + size + " B");
                scoped.clear();
                reset.clear();
                heap.clear();
                for (int i = 0; i < samples; i++) {
                    scopedOnce(scope, size, scoped, reset);
                }
                for (int i = 0; i < samples; i++) {
                    heapOnce(size, i, heap);
                }
                watchdog.check();
                row(rows, "scoped", size, scoped);
                row(rows, "heap", size, heap);
                row(rows, "scoped-reset", size, reset);
            }
        }
    }

    private static void scopedOnce(Scope scope, int size, Samples alloc, Samples reset) {
        long t0 = System.nanoTime();
        long at = scope.allocate(size);
        long t1 = System.nanoTime();
        scope.putLong(at, t1); // the release writes what it allocated: reset then has bytes to zero
        long r0 = System.nanoTime();
        scope.reset();
        long r1 = System.nanoTime();
        if (alloc != null) {
            alloc.add(t1 - t0);
            reset.add(r1 - r0);
        }
    }

    private static void heapOnce(int size, int i, Samples into) {
        long t0 = System.nanoTime();
        byte[] a = new byte[size];
        long t1 = System.nanoTime();
        SINK[i & 63] = a;
        if (into != null) {
            into.add(t1 - t0);
        }
    }

    private static void row(PrintStream rows, String memory, int size, Samples s) {
        JsonWriter w = new JsonWriter().beginObject()
                .field("test", "alloc").field("memory", memory).field("size_bytes", size);
        s.write(w, "time", true);
        rows.println(w.endObject());
    }
}
