package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The static validation of applications for one RT cell (dissertation chapter 5): memory against
 * the cell's budget, channel overflow, and fixed-priority preemptive schedulability per CPU. A cell
 * with several CPUs is validated partitioned as {@link Partition#assign} places its components (the
 * function the runtime pins threads by). Critical sections only block tasks on the same CPU (no
 * remote blocking term).
 */
public final class Validation {
    private Validation() {}

    public static ValidationReport run(SystemModel model, Cell cell) {
        return run(model, cell, Map.of());
    }

    /**
     * @param fixed CPU index of components already running on the cell ({@link Task#componentKey}):
     *     the analysis keeps them there, as the runtime does
     */
    public static ValidationReport run(SystemModel model, Cell cell, Map<String, Integer> fixed) {
        List<String> reasons = new ArrayList<>(model.problems());
        Map<Integer, List<Task>> placed = place(model, cell, fixed, reasons);
        Function<String, String> labels = labels(model);
        List<ValidationReport.Cpu> cpus = new ArrayList<>();
        Map<String, ResponseTimeAnalysis.Result> byTask = new HashMap<>();
        for (int cpu = 0; cpu < cell.cpus(); cpu++) {
            List<Task> tasks = placed.get(cpu);
            tasks.sort(Comparator.comparingInt(Task::priority).reversed());
            Map<String, Long> blocking = Blocking.compute(tasks, model.criticalSections());
            List<ResponseTimeAnalysis.Result> results = ResponseTimeAnalysis.analyse(tasks, blocking);
            for (ResponseTimeAnalysis.Result r : results) {
                byTask.put(r.task().key(), r);
                if (!r.schedulable()) {
                    reasons.add("UNSCHEDULABLE: " + labels.apply(r.task().key()) + " WCRT " + Durations.format(r.wcrtNanos())
                            + " > deadline " + Durations.format(r.task().deadlineNanos())
                            + (cell.cpus() > 1 ? " on CPU " + cpu : ""));
                }
            }
            cpus.add(new ValidationReport.Cpu(cpu, ResponseTimeAnalysis.utilization(tasks),
                    ResponseTimeAnalysis.liuLaylandBound(tasks.size()), ResponseTimeAnalysis.hyperbolicProduct(tasks),
                    ResponseTimeAnalysis.boundsApply(tasks, blocking), results));
        }
        List<ValidationReport.ChannelResult> channels = ChannelOverflow.analyse(model, byTask, labels);
        for (ValidationReport.ChannelResult c : channels) {
            if (!c.holds()) {
                reasons.add("CHANNEL_OVERFLOW: " + c.channel().name() + " " + c.verdict());
            }
        }
        ValidationReport.Memory memory = memory(model, cell);
        if (!memory.holds()) {
            reasons.add("OVER_BUDGET: scopes " + memory.scopeBytes() + " B + channels " + memory.channelBytes()
                    + " B + runtime " + cell.runtimeReservedBytes() + " B = " + memory.totalBytes() + " B > rt_budget_bytes "
                    + cell.budgetBytes() + " B of board " + cell.board());
        }
        return new ValidationReport(cell, model, List.copyOf(cpus), channels, memory, List.copyOf(reasons));
    }

    /** A task's name in the report, given its key: its own name, or app/name where two applications use the name. */
    public static Function<String, String> labels(SystemModel model) {
        Map<String, Integer> uses = new HashMap<>();
        for (Task t : model.tasks()) {
            uses.merge(t.name(), 1, Integer::sum);
        }
        return key -> {
            String name = key.substring(key.indexOf('/') + 1);
            return uses.getOrDefault(name, 0) > 1 ? key : name;
        };
    }

    /** Tasks per CPU, as {@link Partition#assign} places their components. */
    private static Map<Integer, List<Task>> place(SystemModel model, Cell cell, Map<String, Integer> fixed,
                                                  List<String> reasons) {
        Partition.Assignment a = Partition.assign(model, cell.cpus(), fixed);
        reasons.addAll(a.problems());
        Map<Integer, List<Task>> placed = new HashMap<>();
        for (int cpu = 0; cpu < cell.cpus(); cpu++) {
            placed.put(cpu, Partition.tasksOn(model, a.cpuOf(), cpu));
        }
        return placed;
    }

    private static ValidationReport.Memory memory(SystemModel model, Cell cell) {
        long scopes = 0;
        long channels = 0;
        for (MemoryFigure f : model.memory()) {
            if (f.what().startsWith("channel ")) {
                channels += f.totalBytes();
            } else {
                scopes += f.totalBytes();
            }
        }
        long total = scopes + channels + cell.runtimeReservedBytes();
        return new ValidationReport.Memory(scopes, channels, total, total <= cell.budgetBytes());
    }
}
