package org.rtdroid.runtime.os;

/**
 * What the kernel actually applied to one thread (read back from the kernel, not assumed).
 *
 * @param tid kernel thread id
 * @param schedPolicy {@link Linux#SCHED_FIFO}, {@link Linux#SCHED_OTHER}, ...
 * @param priority static priority (0 under SCHED_OTHER)
 * @param cpus the CPUs the thread may run on
 * @param timerSlackNanos the thread's timer slack
 * @param degraded what of the requested policy could not be applied and why, or "" if nothing
 */
public record AppliedPolicy(int tid, int schedPolicy, int priority, CpuSet cpus, long timerSlackNanos, String degraded) {

    public boolean isFifo() {
        return schedPolicy == Linux.SCHED_FIFO;
    }

    public boolean isDegraded() {
        return !degraded.isEmpty();
    }

    public static String policyName(int policy) {
        return switch (policy) {
            case Linux.SCHED_OTHER -> "SCHED_OTHER";
            case Linux.SCHED_FIFO -> "SCHED_FIFO";
            case Linux.SCHED_RR -> "SCHED_RR";
            case 3 -> "SCHED_BATCH";
            case 5 -> "SCHED_IDLE";
            case 6 -> "SCHED_DEADLINE";
            default -> "policy " + policy;
        };
    }

    @Override
    public String toString() {
        return "tid " + tid + ": " + policyName(schedPolicy) + (schedPolicy == Linux.SCHED_FIFO || schedPolicy == Linux.SCHED_RR ? " " + priority : "")
                + ", cpus " + cpus + ", timer slack " + timerSlackNanos + " ns"
                + (degraded.isEmpty() ? "" : " (degraded: " + degraded + ")");
    }
}
