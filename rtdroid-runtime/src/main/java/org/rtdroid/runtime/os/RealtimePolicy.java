package org.rtdroid.runtime.os;

/**
 * What a real-time thread asks for: a SCHED_FIFO priority, the CPUs it may run on, its timer slack.
 *
 * @param fifoPriority SCHED_FIFO priority 1..99, or 0 for SCHED_OTHER (a real-time thread drops to it)
 * @param cpus the CPUs to pin to, or null to keep the inherited affinity
 * @param timerSlackNanos timer slack to set (1 for the tightest wake-ups), or 0 to keep the default
 */
public record RealtimePolicy(int fifoPriority, CpuSet cpus, long timerSlackNanos) {
    /** The lowest and highest priority SCHED_FIFO accepts on Linux. */
    public static final int MIN_FIFO_PRIORITY = 1;
    public static final int MAX_FIFO_PRIORITY = 99;

    public RealtimePolicy {
        if (fifoPriority != 0 && (fifoPriority < MIN_FIFO_PRIORITY || fifoPriority > MAX_FIFO_PRIORITY)) {
            throw new IllegalArgumentException("SCHED_FIFO priority " + fifoPriority
                    + " is outside " + MIN_FIFO_PRIORITY + ".." + MAX_FIFO_PRIORITY + " (0 means SCHED_OTHER)");
        }
        if (cpus != null && cpus.isEmpty()) {
            throw new IllegalArgumentException("CPU set is empty: give at least one CPU, or null to keep the affinity");
        }
        if (timerSlackNanos < 0) {
            throw new IllegalArgumentException("timer slack " + timerSlackNanos + " ns is negative");
        }
    }

    /** SCHED_FIFO at {@code priority}, 1 ns timer slack, affinity unchanged. */
    public static RealtimePolicy fifo(int priority) {
        return new RealtimePolicy(priority, null, 1);
    }

    /** SCHED_OTHER, affinity and timer slack unchanged: the policy of a non-real-time thread. */
    public static RealtimePolicy normal() {
        return new RealtimePolicy(0, null, 0);
    }

    public RealtimePolicy withCpus(CpuSet set) {
        return new RealtimePolicy(fifoPriority, set, timerSlackNanos);
    }

    public RealtimePolicy withTimerSlackNanos(long nanos) {
        return new RealtimePolicy(fifoPriority, cpus, nanos);
    }

    @Override
    public String toString() {
        return (fifoPriority > 0 ? "SCHED_FIFO " + fifoPriority : "SCHED_OTHER")
                + (cpus != null ? ", cpus " + cpus : "")
                + (timerSlackNanos > 0 ? ", timer slack " + timerSlackNanos + " ns" : "");
    }
}
