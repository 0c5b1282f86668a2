package org.rtdroid.runtime.boot;

import org.rtdroid.runtime.os.CpuSet;

/**
 * What the RT cell gives the runtime: its CPUs, its scoped-memory budget and the range of
 * SCHED_FIFO priorities its components may use (the lowest is where cross-context intents queue).
 *
 * @param cpus CPUs real-time threads are pinned to (null: leave affinity alone)
 * @param budgetBytes scoped memory + channel memory all deployed applications may pre-allocate
 * @param minPriority lowest real-time priority of the cell (cross-context proxy level)
 * @param maxPriority highest real-time priority a component may declare
 * @param realtime apply SCHED_FIFO / affinity / timer slack to component threads (degrades with
 *     one warning when not permitted); false runs everything SCHED_OTHER (tests, laptops)
 * @param lockMemory call mlockall at start (do it with -Xms = -Xmx and -XX:+AlwaysPreTouch)
 * @param outboundCapacity slots of the shared cross-context outbound ring
 */
public record CellConfig(CpuSet cpus, long budgetBytes, int minPriority, int maxPriority, boolean realtime,
                         boolean lockMemory, int outboundCapacity) {

    public CellConfig {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("budget must be positive, was " + budgetBytes);
        }
        if (minPriority < 1 || maxPriority > 99 || minPriority > maxPriority) {
            throw new IllegalArgumentException("priority range " + minPriority + ".." + maxPriority
                    + " must lie within 1..99 and be non-empty");
        }
        if (outboundCapacity < 1) {
            throw new IllegalArgumentException("outbound capacity must be at least 1");
        }
    }

    /** The cell as the RT cell agent runs it: pinned, SCHED_FIFO, memory locked. */
    public CellConfig(CpuSet cpus, long budgetBytes, int minPriority, int maxPriority) {
        this(cpus, budgetBytes, minPriority, maxPriority, true, true, 1024);
    }

    /** Development / test cell: no CPU pinning, no SCHED_FIFO, no mlockall. */
    public static CellConfig unprivileged(long budgetBytes) {
        return new CellConfig(null, budgetBytes, 1, 98, false, false, 1024);
    }

    /** Number of CPUs the utilization check may fill (the pinned set, else the machine's). */
    public int cpuCount() {
        return cpus != null ? cpus.size() : Runtime.getRuntime().availableProcessors();
    }

    public CellConfig withRealtime(boolean rt, boolean lock) {
        return new CellConfig(cpus, budgetBytes, minPriority, maxPriority, rt, lock, outboundCapacity);
    }
}
