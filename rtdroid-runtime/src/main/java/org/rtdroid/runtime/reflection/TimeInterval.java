package org.rtdroid.runtime.reflection;

/**
 * When an operation was planned to run and when it did (seed 004, Listing 1): two [begin, end]
 * pairs on the cell's monotonic clock ({@code CLOCK_MONOTONIC} nanoseconds, the time base of
 * {@link System#nanoTime} and {@link RealTimeLine#now}). The strategist sets the planned pair when it
 * plans an action; the execution engine stamps the actual pair when it runs it. Actual instants
 * are {@link #NOT_RUN} until then.
 */
public final class TimeInterval {
    /** An actual instant not stamped yet (the action has not run). */
    public static final long NOT_RUN = Long.MIN_VALUE;

    long plannedBeginNanos;
    long plannedEndNanos;
    long actualBeginNanos = NOT_RUN;
    long actualEndNanos = NOT_RUN;

    public long plannedBeginNanos() { return plannedBeginNanos; }
    public long plannedEndNanos() { return plannedEndNanos; }
    public long actualBeginNanos() { return actualBeginNanos; }
    public long actualEndNanos() { return actualEndNanos; }

    /** Actual minus planned begin: how late (positive) or early (negative) the action started. */
    public long beginErrorNanos() { return actualBeginNanos - plannedBeginNanos; }

    /** How long the action actually ran. */
    public long actualDurationNanos() { return actualEndNanos - actualBeginNanos; }

    void plan(long beginNanos, long endNanos) {
        plannedBeginNanos = beginNanos;
        plannedEndNanos = endNanos;
        actualBeginNanos = NOT_RUN;
        actualEndNanos = NOT_RUN;
    }
}
