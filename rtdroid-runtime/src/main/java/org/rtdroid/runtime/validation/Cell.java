package org.rtdroid.runtime.validation;

/**
 * The RT cell the applications are validated for: its name (the board's), its CPU count, its
 * memory budget ({@code rt_budget_bytes}) and what the runtime itself reserves from it.
 */
public record Cell(String board, int cpus, long budgetBytes, long runtimeReservedBytes) {
    public Cell {
        if (cpus < 1) {
            throw new IllegalArgumentException("a cell needs at least one CPU, not " + cpus);
        }
        if (budgetBytes <= 0 || runtimeReservedBytes < 0) {
            throw new IllegalArgumentException("budget must be > 0 and the reservation >= 0");
        }
    }
}
