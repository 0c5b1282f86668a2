package org.rtdroid.runtime.boot;

import org.rtdroid.runtime.validation.Task;

/**
 * One line of {@link RuntimeHost#services()}: a component or a periodic task of a deployed app.
 *
 * @param name {@code <app>/<Component>} or {@code <app>/<Component>/<task>}
 * @param state CREATED, STARTING, RUNNING, STOPPING, DESTROYED or FAILED
 * @param releases periodic releases (tasks) or completed callbacks (services, receivers)
 * @param deadlineMisses releases that completed after their deadline (tasks; 0 otherwise)
 * @param worstLatenessNanos worst release lateness (tasks) or worst send-to-callback delay (others)
 * @param worstResponseNanos worst response time: release to completion (tasks) or send to the end of
 *     the callback (others), the measured counterpart of the analysed worst-case response time
 * @param overruns releases still running when the next was due (tasks)
 * @param failures callbacks that failed (exceptions, scope overflows, heap-bound violations)
 * @param priority the declared priority
 * @param cause the component's failure (the one that made it FAILED, else the latest), or null when
 *     it never failed; the rows of a component's tasks carry the component's cause
 * @param cpu the CPU the cell's partition pins the component's threads to, or -1 when it is not
 *     partitioned (they run on any of the cell's CPUs)
 * @param execution the CPU time the releases (tasks) or callbacks (others) used, against the cost the
 *     admission analysis assumed for them
 */
public record ServiceStatus(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                            long worstResponseNanos, long overruns, long failures, int priority, FailureCause cause,
                            int cpu, Execution execution) {

    /**
     * What the code of one release or callback executed, in the calling thread's CPU time.
     *
     * @param worstNanos the most CPU time one release or callback used (0: none yet)
     * @param costNanos the cost (WCET) the admission analysis assumed for one; 0 when none is declared
     * @param overruns releases or callbacks that used more than {@code costNanos}: each is a release
     *     the analysed worst-case response time did not account for
     * @param lastOverrun the release or callback (from 1) that overran last; 0: none did. Overruns
     *     that all lie in the first releases after a deploy are the JIT's cold code, not the app's
     */
    public record Execution(long worstNanos, long costNanos, long overruns, long lastOverrun) {
        /** Nothing measured, no cost declared. */
        public static final Execution NONE = new Execution(0, 0, 0, 0);
    }

    /**
     * The admission analysis's key ({@link Task#key}) of what this line reports on: the line
     * {@code app/Component/task} is the periodic task {@code app/task}, the line {@code app/Component}
     * the component's own work (callbacks, server).
     */
    public String analysisKey() {
        int first = name.indexOf('/');
        int last = name.lastIndexOf('/');
        return first == last ? name : Task.key(name.substring(0, first), name.substring(last + 1));
    }

    /** A line of a partitioned component without execution figures. */
    public ServiceStatus(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                         long worstResponseNanos, long overruns, long failures, int priority, FailureCause cause,
                         int cpu) {
        this(name, state, releases, deadlineMisses, worstLatenessNanos, worstResponseNanos, overruns, failures, priority,
                cause, cpu, Execution.NONE);
    }

    /** A line of a component that is not partitioned. */
    public ServiceStatus(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                         long worstResponseNanos, long overruns, long failures, int priority, FailureCause cause) {
        this(name, state, releases, deadlineMisses, worstLatenessNanos, worstResponseNanos, overruns, failures, priority,
                cause, -1);
    }
}
