package org.rtdroid.runtime.manifest;

/**
 * {@code <periodic-task name>} inside a service: priority, release scope size, start offset,
 * period, deadline (defaults to the period) and an optional declared worst-case execution time
 * ({@code wcet}, 0 when not declared) used by the utilization check.
 */
public record PeriodicTaskDecl(String name, int priority, long releaseBytes, long startNanos,
                               long periodNanos, long deadlineNanos, long wcetNanos, int line) {}
