package org.rtdroid.bridge.rtproxy;

/**
 * A CPU-time budget for a polling SCHED_FIFO thread: at most {@code budgetNanos} of CPU time per
 * {@code windowNanos} of wall time, however long one pass of its loop takes.
 *
 * <p>Why it matters: a SCHED_FIFO thread that keeps its CPU busy starves every SCHED_OTHER thread
 * of that CPU, and on a real-time cell those include the JVM's own (the VM thread, the JIT
 * compilers, the GC workers). Real-time threads of any priority then end up waiting for them (a
 * safepoint, a stack-watermark lock, a recompilation) until Linux's RT throttling gives them the
 * last 5% of the second: stalls of up to ~0.95 s. Before this class, the proxy of the host board
 * was seen using 80-100% of its CPU for up to a second during the fault tests' channel flood.
 *
 * <p>The earlier budget reset its window whenever one pass crossed the window's end, so a pass
 * longer than the window (cold, interpreted code; a preempted pass) was never charged. Here the
 * thread is charged for all the CPU time it used since the window opened: if that exceeds the
 * budget, it must sleep until the window is long enough for the usage to be within the budget's
 * share ({@code used * window / budget}). Pure arithmetic on the clocks it is given, so it is
 * tested without sleeping; allocation-free.
 */
public final class CpuBudget {
    private final long windowNanos;
    private final long budgetNanos;
    private long windowStart;
    private long windowCpuStart;

    public CpuBudget(long windowNanos, long budgetNanos) {
        if (windowNanos <= 0 || budgetNanos <= 0 || budgetNanos > windowNanos) {
            throw new IllegalArgumentException("CPU budget " + budgetNanos + " ns per " + windowNanos
                    + " ns window must satisfy 0 < budget <= window");
        }
        this.windowNanos = windowNanos;
        this.budgetNanos = budgetNanos;
    }

    /** Opens a window at wall time {@code now} and thread CPU time {@code cpu}. */
    public void restart(long now, long cpu) {
        windowStart = now;
        windowCpuStart = cpu;
    }

    /**
     * Charges the thread's usage so far.
     *
     * @param now the wall clock (monotonic ns)
     * @param cpu the thread's CPU time (ns)
     * @return how long the thread must sleep before its next pass (0: go on); after sleeping,
     *     call {@link #restart} with fresh clocks
     */
    public long charge(long now, long cpu) {
        long used = cpu - windowCpuStart;
        if (used >= budgetNanos) {
            // The window must last used/share for the usage to fit the share.
            long wake = windowStart + used * windowNanos / budgetNanos;
            if (wake > now) {
                return wake - now;
            }
            restart(now, cpu); // a long window with little CPU in it: within the share
            return 0;
        }
        if (now - windowStart >= windowNanos) {
            restart(now, cpu);
        }
        return 0;
    }
}
