package org.rtdroid.runtime.validation;

/**
 * One schedulable entity of the analysis: a periodic task, a sporadic receiver (its period is its
 * minimum inter-arrival time) or a server for aperiodic work (its budget every period). Times in
 * nanoseconds; {@code cpu} is the index of a CPU of the cell, or -1 when the manifest pins nothing.
 * {@code source} is "file:line" of the declaration. {@code component} is the unit of placement on a
 * CPU: the simple name of the component the task belongs to (its periodic tasks, its own work and
 * its thread run on one CPU), or the name of a runtime service thread ({@link RuntimeServices}).
 */
public record Task(String app, String name, Kind kind, int priority, long periodNanos, long costNanos,
                   long deadlineNanos, long jitterNanos, int cpu, String source, String component) {

    public enum Kind {
        PERIODIC("periodic"), SPORADIC("sporadic"), SERVER("server");

        private final String word;

        Kind(String word) { this.word = word; }

        public String word() { return word; }
    }

    /** A task that is a placement unit of its own (its component is its name). */
    public Task(String app, String name, Kind kind, int priority, long periodNanos, long costNanos,
                long deadlineNanos, long jitterNanos, int cpu, String source) {
        this(app, name, kind, priority, periodNanos, costNanos, deadlineNanos, jitterNanos, cpu, source, name);
    }

    /** Unique in the cell: the application's name and the task's. */
    public String key() { return key(app, name); }

    /**
     * The key of task {@code name} of application {@code app}: a periodic task's name, or the
     * simple name of the component whose own work (callbacks, server) the task stands for.
     */
    public static String key(String app, String name) { return app + "/" + name; }

    /** The placement unit's key, as {@link Partition} assigns it: the application's name and the component's. */
    public String componentKey() { return app + "/" + component; }

    public double utilization() { return (double) costNanos / periodNanos; }

    public Task onCpu(int index) {
        return new Task(app, name, kind, priority, periodNanos, costNanos, deadlineNanos, jitterNanos, index, source,
                component);
    }
}
