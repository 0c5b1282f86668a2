package org.rtdroid.bench;

import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * Bounds every phase of a benchmark run: a phase that outlives its bound ends the JVM
 * ({@code Runtime.halt}), so a SCHED_FIFO thread that runs away cannot hold a CPU past it. The
 * watchdog thread runs at SCHED_FIFO 99 (above every benchmark thread), unpinned, so a spinning
 * real-time thread on the bench CPU cannot keep it from running; the RT throttling of the kernel
 * and an outer {@code timeout -s KILL} (bench/figures) are the backstops where it cannot.
 */
public final class Watchdog {
    public static final int PRIORITY = 99;
    /** Exit status when a phase overran. */
    public static final int EXIT_STATUS = 3;
    private static final Object LOCK = new Object();
    private static Thread thread;
    private static String phase;
    private static long deadlineNanos = Long.MAX_VALUE;

    private Watchdog() {}

    /** A phase, closed when it ends. */
    public interface Phase extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Starts a phase of at most {@code boundSeconds}. Phases do not nest: a new one replaces the
     * current one, and closing it leaves no phase (the run as a whole still has its outer bound).
     */
    public static Phase phase(String name, double boundSeconds) {
        long deadline = System.nanoTime() + (long) (boundSeconds * 1e9);
        synchronized (LOCK) {
            ensureStarted();
            phase = name;
            deadlineNanos = deadline;
        }
        return () -> {
            synchronized (LOCK) {
                if (deadlineNanos == deadline) {
                    phase = null;
                    deadlineNanos = Long.MAX_VALUE;
                }
            }
        };
    }

    private static void ensureStarted() {
        if (thread != null) {
            return;
        }
        thread = RealtimeThreads.newThread("bench-watchdog", RealtimePolicy.fifo(PRIORITY), null, Watchdog::watch);
        thread.setDaemon(true);
        thread.start();
    }

    private static void watch() {
        while (true) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            String overrun = null;
            synchronized (LOCK) {
                if (System.nanoTime() > deadlineNanos) {
                    overrun = phase;
                }
            }
            if (overrun != null) {
                System.err.println("rtdroid-bench: watchdog: phase \"" + overrun + "\" outlived its bound; halting the JVM");
                System.err.flush();
                Runtime.getRuntime().halt(EXIT_STATUS);
            }
        }
    }
}
