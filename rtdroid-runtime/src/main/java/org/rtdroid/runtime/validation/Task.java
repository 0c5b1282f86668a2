package org.rtdroid.runtime.validation;

/**
 * One schedulable entity of the analysis: a periodic task, a sporadic receiver (its period is its
 * minimum inter-arrival time) or a server for aperiodic work (its budget every period). Times in
 * nanoseconds; {@code cpu} is the index of a CPU of the cell, or -1 when the manifest pins nothing.
 * {@code source} is "file:line" of the declaration.
 */
public record Task(String app, String name, Kind kind, int priority, long periodNanos, long costNanos,
                   long deadlineNanos, long jitterNanos, int cpu, String source) {

    public enum Kind {
        PERIODIC("periodic"), SPORADIC("sporadic"), SERVER("server");

        private final String word;

        Kind(String word) { this.word = word; }

        public String word() { return word; }
    }

    /** Unique in the cell: the application's name and the task's. */
    public String key() { return app + "/" + name; }

    public double utilization() { return (double) costNanos / periodNanos; }

    public Task onCpu(int index) {
        return new Task(app, name, kind, priority, periodNanos, costNanos, deadlineNanos, jitterNanos, index, source);
    }
}
