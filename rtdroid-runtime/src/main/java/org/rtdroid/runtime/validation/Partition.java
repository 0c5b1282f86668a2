package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The partition of a cell with several CPUs: which CPU each placement unit runs on. The unit is a
 * component ({@link Task#componentKey}): its periodic tasks, its own work and its thread share one
 * CPU. A unit goes where {@code fixed} says (the CPU it already runs on), else where the manifest
 * pins it ({@code cpu} on the component or on one of its tasks), else first-fit decreasing: units by
 * utilization, largest first, each on the lowest CPU where every task placed there still meets its
 * deadline (response-time analysis), or on the least loaded CPU when it fits nowhere (the analysis
 * then reports it). The analysis ({@link Validation}) and the runtime (which pins each component's
 * threads to its CPU) both call {@link #assign}: the partition analysed is the one that runs.
 */
public final class Partition {
    private Partition() {}

    /**
     * @param cpuOf CPU index (0 .. cpus-1) of every placed unit; a unit whose pin is not a CPU of the
     *     cell is absent
     * @param problems the reasons a unit could not be placed as declared
     */
    public record Assignment(Map<String, Integer> cpuOf, List<String> problems) {}

    /**
     * @param fixed CPU index of units already running (kept where they are); may be empty
     */
    public static Assignment assign(SystemModel model, int cpus, Map<String, Integer> fixed) {
        Map<String, List<Task>> units = new LinkedHashMap<>();
        for (Task t : model.tasks()) {
            units.computeIfAbsent(t.componentKey(), k -> new ArrayList<>()).add(t);
        }
        Map<String, Integer> cpuOf = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        List<List<Task>> free = new ArrayList<>();
        for (Map.Entry<String, List<Task>> u : units.entrySet()) {
            Integer kept = fixed.get(u.getKey());
            int pin = kept != null ? kept : pin(u.getValue(), problems);
            if (pin >= cpus) {
                Task t = pinnedTask(u.getValue(), pin);
                problems.add("PARTITION: " + t.name() + " (" + t.source() + "): cpu " + pin + " is not one of the cell's "
                        + cpus + " CPU(s) 0.." + (cpus - 1));
            } else if (pin >= 0) {
                cpuOf.put(u.getKey(), pin);
            } else if (cpus == 1) {
                cpuOf.put(u.getKey(), 0);
            } else {
                free.add(u.getValue());
            }
        }
        free.sort(Comparator.comparingDouble(Partition::utilization).reversed());
        for (List<Task> unit : free) {
            int chosen = -1;
            for (int cpu = 0; cpu < cpus && chosen < 0; cpu++) {
                List<Task> trial = tasksOn(model, cpuOf, cpu);
                for (Task t : unit) {
                    trial.add(t.onCpu(cpu));
                }
                Map<String, Long> blocking = Blocking.compute(trial, model.criticalSections());
                if (ResponseTimeAnalysis.analyse(trial, blocking).stream().allMatch(ResponseTimeAnalysis.Result::schedulable)) {
                    chosen = cpu;
                }
            }
            if (chosen < 0) {  // fits nowhere: the least loaded CPU, where the analysis reports it
                chosen = 0;
                for (int cpu = 1; cpu < cpus; cpu++) {
                    if (ResponseTimeAnalysis.utilization(tasksOn(model, cpuOf, cpu))
                            < ResponseTimeAnalysis.utilization(tasksOn(model, cpuOf, chosen))) {
                        chosen = cpu;
                    }
                }
            }
            cpuOf.put(unit.get(0).componentKey(), chosen);
        }
        return new Assignment(Map.copyOf(cpuOf), List.copyOf(problems));
    }

    /** The tasks of {@code model} whose unit is placed on {@code cpu}, each carrying that CPU. */
    static List<Task> tasksOn(SystemModel model, Map<String, Integer> cpuOf, int cpu) {
        List<Task> out = new ArrayList<>();
        for (Task t : model.tasks()) {
            Integer c = cpuOf.get(t.componentKey());
            if (c != null && c == cpu) {
                out.add(t.onCpu(cpu));
            }
        }
        return out;
    }

    /** The CPU a unit's tasks pin, or -1; tasks pinning different CPUs are a problem (the first pin wins). */
    private static int pin(List<Task> unit, List<String> problems) {
        TreeSet<Integer> pins = new TreeSet<>();
        for (Task t : unit) {
            if (t.cpu() >= 0) {
                pins.add(t.cpu());
            }
        }
        if (pins.size() > 1) {
            Task t = unit.get(0);
            problems.add("PARTITION: " + t.component() + " (" + t.source() + "): its tasks are pinned to CPUs " + pins
                    + "; a component runs on one CPU");
        }
        return pins.isEmpty() ? -1 : pinnedTask(unit, -1).cpu();
    }

    /** The unit's first task pinning {@code cpu} (any pinned task with -1). */
    private static Task pinnedTask(List<Task> unit, int cpu) {
        for (Task t : unit) {
            if (t.cpu() >= 0 && (cpu < 0 || t.cpu() == cpu)) {
                return t;
            }
        }
        return unit.get(0);
    }

    private static double utilization(List<Task> unit) {
        return ResponseTimeAnalysis.utilization(unit);
    }
}
