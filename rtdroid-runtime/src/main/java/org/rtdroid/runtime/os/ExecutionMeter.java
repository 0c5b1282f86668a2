package org.rtdroid.runtime.os;

/**
 * The CPU time the app's code used in each release of a periodic task, or in each callback of a
 * component (its sensor listeners' included), held to the cost the admission analysis assumed for
 * one. Written by the one thread that runs the releases or callbacks, read by the status path;
 * allocation-free.
 */
public final class ExecutionMeter {
    private volatile long worstNanos;
    private volatile long lastNanos;
    private volatile long overruns;
    private volatile long lastOverrun;
    private volatile long costNanos;

    public ExecutionMeter(long costNanos) {
        this.costNanos = costNanos;
    }

    /** The calling thread's CPU clock now: pass it to {@link #end} after the app's code. */
    public static long start() {
        return CpuClock.currentThreadNanos();
    }

    /**
     * Ends release or callback {@code number} (from 1) begun at CPU time {@code start}.
     *
     * @return whether it overran the cost
     */
    public boolean end(long start, long number) {
        long execution = CpuClock.currentThreadNanos() - start;
        lastNanos = execution;
        if (execution > worstNanos) {
            worstNanos = execution;
        }
        long cost = costNanos;
        if (cost > 0 && execution > cost) {
            overruns++;
            lastOverrun = number;
            return true;
        }
        return false;
    }

    public long worstNanos() { return worstNanos; }
    /** The CPU time of the last release or callback {@link #end} measured. */
    public long lastNanos() { return lastNanos; }
    public long overruns() { return overruns; }
    public long lastOverrun() { return lastOverrun; }
    public long costNanos() { return costNanos; }
    public void costNanos(long nanos) { costNanos = nanos; }
}
