package org.rtdroid.runtime.boot;

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
 */
public record ServiceStatus(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                            long worstResponseNanos, long overruns, long failures, int priority, FailureCause cause,
                            int cpu) {

    /** A line of a component that is not partitioned. */
    public ServiceStatus(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                         long worstResponseNanos, long overruns, long failures, int priority, FailureCause cause) {
        this(name, state, releases, deadlineMisses, worstLatenessNanos, worstResponseNanos, overruns, failures, priority,
                cause, -1);
    }
}
