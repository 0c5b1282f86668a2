package org.rtdroid.runtime.manifest;

/**
 * {@code <periodic-task name>} inside a service: priority, release scope size, start offset,
 * period, deadline (defaults to the period) and an optional declared worst-case execution time
 * ({@code wcet}, 0 when not declared) used by the utilization check, and the deadline-miss and
 * cost-overrun handlers of its releases.
 */
public record PeriodicTaskDecl(String name, int priority, long releaseBytes, long startNanos,
                               long periodNanos, long deadlineNanos, long wcetNanos, int line,
                               java.util.List<JobHandlerDecl> handlers) {

    /** A task without miss or overrun handlers. */
    public PeriodicTaskDecl(String name, int priority, long releaseBytes, long startNanos, long periodNanos,
                            long deadlineNanos, long wcetNanos, int line) {
        this(name, priority, releaseBytes, startNanos, periodNanos, deadlineNanos, wcetNanos, line, java.util.List.of());
    }

    /** Its handler of that kind, or null. */
    public JobHandlerDecl handler(JobHandlerDecl.Kind kind) { return JobHandlerDecl.find(handlers, kind); }
}
