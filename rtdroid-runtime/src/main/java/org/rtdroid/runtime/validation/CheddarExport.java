package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The analysed task set as Cheddar ADL XML (Cheddar 3.x), as the dissertation fed its manifests to
 * Cheddar (section 5.2.1): per CPU a core unit with the POSIX highest-priority-first preemptive
 * scheduler and a mono-core processor, per application an address space, every task with its
 * period (minimum inter-arrival time for a sporadic one), capacity (cost), deadline, priority and
 * jitter, and every channel as a buffer with its producers and consumers. Cheddar's times have no
 * unit: the export uses the largest of 1 ms, 1 us, 1 ns that expresses every time exactly, and
 * says which in a comment.
 *
 * <p>It follows the rules of Cheddar ADL (Lab-STICC's reference, {@code docs/cheddar_adl/sections}
 * of Cheddar's SVN trunk) and of Cheddar's own reader ({@code systems.adb}): every name is a valid
 * identifier (letters, digits, single underscores: {@code cochlear.output} becomes
 * {@code cochlear_output}), a task lies in an address space on its own processor (on a cell of
 * several CPUs an application has one address space per CPU it uses, {@code app_cpuN}), and a
 * buffer links tasks of one address space (its first consumer's; the roles of tasks placed on
 * another CPU are left out and named in a comment). {@code CheddarExportFormatTest} checks these.
 */
public final class CheddarExport {
    private CheddarExport() {}

    public static String render(ValidationReport r) {
        long unit = unit(r);
        String unitName = unit == 1_000_000 ? "1 ms" : unit == 1_000 ? "1 us" : "1 ns";
        Function<String, String> labels = identifiers(Validation.labels(r.model()));
        StringBuilder x = new StringBuilder();
        x.append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
        x.append("<!-- RTDroid validation export for Cheddar; board ").append(esc(r.cell().board()))
                .append("; time unit ").append(unitName).append(" -->\n");
        x.append("<cheddar>\n  <core_units>\n");
        for (ValidationReport.Cpu cpu : r.cpus()) {
            String core = "core" + cpu.index();
            x.append("    <core_unit id=\"").append(core).append("\">\n");
            tag(x, 6, "object_type", "CORE_OBJECT_TYPE");
            tag(x, 6, "name", core);
            x.append("      <scheduling>\n        <scheduling_parameters>\n");
            tag(x, 10, "scheduler_type", "POSIX_1003_HIGHEST_PRIORITY_FIRST_PROTOCOL");
            tag(x, 10, "quantum", "0");
            tag(x, 10, "preemptive_type", "PREEMPTIVE");
            tag(x, 10, "capacity", "0");
            tag(x, 10, "period", "0");
            tag(x, 10, "priority", "0");
            tag(x, 10, "start_time", "0");
            x.append("        </scheduling_parameters>\n      </scheduling>\n");
            tag(x, 6, "speed", "1");
            x.append("    </core_unit>\n");
        }
        x.append("  </core_units>\n  <processors>\n");
        for (ValidationReport.Cpu cpu : r.cpus()) {
            x.append("    <mono_core_processor id=\"cpu").append(cpu.index()).append("\">\n");
            tag(x, 6, "object_type", "PROCESSOR_OBJECT_TYPE");
            tag(x, 6, "name", "cpu" + cpu.index());
            tag(x, 6, "processor_type", "MONOCORE_TYPE");
            tag(x, 6, "migration_type", "NO_MIGRATION_TYPE");
            x.append("      <core ref=\"core").append(cpu.index()).append("\"/>\n");
            x.append("    </mono_core_processor>\n");
        }
        x.append("  </processors>\n  <address_spaces>\n");
        for (String app : apps(r)) {
            for (int cpu : cpusOf(r, app)) {
                String space = addressSpace(r, app, cpu);
                x.append("    <address_space id=\"").append(esc(space)).append("\">\n");
                tag(x, 6, "object_type", "ADDRESS_SPACE_OBJECT_TYPE");
                tag(x, 6, "name", space);
                tag(x, 6, "cpu_name", "cpu" + cpu);
                tag(x, 6, "text_memory_size", "0");
                tag(x, 6, "stack_memory_size", "0");
                // an application's scoped memory is reported once, with its first address space
                tag(x, 6, "data_memory_size", Long.toString(cpu == cpusOf(r, app).get(0) ? scopeBytes(r, app) : 0));
                tag(x, 6, "heap_memory_size", "0");
                x.append("    </address_space>\n");
            }
        }
        x.append("  </address_spaces>\n  <tasks>\n");
        for (ValidationReport.Cpu cpu : r.cpus()) {
            for (ResponseTimeAnalysis.Result res : cpu.results()) {
                Task t = res.task();
                String element = t.kind() == Task.Kind.SPORADIC ? "sporadic_task" : "periodic_task";
                String name = labels.apply(t.key());
                x.append("    <").append(element).append(" id=\"").append(esc(name)).append("\">\n");
                tag(x, 6, "object_type", "TASK_OBJECT_TYPE");
                tag(x, 6, "name", name);
                tag(x, 6, "task_type", t.kind() == Task.Kind.SPORADIC ? "SPORADIC_TYPE" : "PERIODIC_TYPE");
                tag(x, 6, "cpu_name", "cpu" + cpu.index());
                tag(x, 6, "address_space_name", addressSpace(r, t.app(), cpu.index()));
                tag(x, 6, "capacity", Long.toString(t.costNanos() / unit));
                tag(x, 6, "deadline", Long.toString(t.deadlineNanos() / unit));
                tag(x, 6, "start_time", "0");
                tag(x, 6, "priority", Integer.toString(t.priority()));
                tag(x, 6, "blocking_time", Long.toString(res.blockingNanos() / unit));
                tag(x, 6, "policy", "SCHED_FIFO");
                tag(x, 6, "period", Long.toString(t.periodNanos() / unit));
                tag(x, 6, "jitter", Long.toString(t.jitterNanos() / unit));
                x.append("    </").append(element).append(">\n");
            }
        }
        x.append("  </tasks>\n  <buffers>\n");
        for (ChannelModel ch : r.model().channels()) {
            int cpu = bufferCpu(r, ch);
            String name = identifier(ch.name());
            x.append("    <buffer id=\"").append(esc(name)).append("\">\n");
            tag(x, 6, "object_type", "BUFFER_OBJECT_TYPE");
            tag(x, 6, "name", name);
            tag(x, 6, "cpu_name", "cpu" + cpu);
            tag(x, 6, "address_space_name", addressSpace(r, ch.app(), cpu));
            tag(x, 6, "queueing_system_type", "QS_PP1");
            tag(x, 6, "size", Integer.toString(ch.capacity()));
            x.append("      <roles>\n");
            List<String> elsewhere = new ArrayList<>();
            role(x, ch.producers(), "QUEUING_PRODUCER", r, labels, cpu, elsewhere);
            role(x, ch.consumers(), "QUEUING_CONSUMER", r, labels, cpu, elsewhere);
            x.append("      </roles>\n");
            if (!elsewhere.isEmpty()) {
                x.append("      <!-- on another CPU, so not a role here (a Cheddar buffer links tasks of one address space): ")
                        .append(esc(String.join(", ", elsewhere))).append(" -->\n");
            }
            x.append("    </buffer>\n");
        }
        x.append("  </buffers>\n</cheddar>\n");
        return x.toString();
    }

    private static void role(StringBuilder x, List<ChannelModel.End> ends, String role, ValidationReport r,
                             Function<String, String> labels, int cpu, List<String> elsewhere) {
        for (ChannelModel.End e : ends) {
            int on = cpuOf(r, e.task());
            if (on < 0) {
                continue;
            }
            if (on != cpu) {
                elsewhere.add(labels.apply(e.task()));
                continue;
            }
            x.append("        <buffer_role task=\"").append(esc(labels.apply(e.task()))).append("\">\n");
            tag(x, 10, "the_role", role);
            tag(x, 10, "size", Integer.toString(e.countPerRelease()));
            tag(x, 10, "time", "0");
            tag(x, 10, "timeout", "0");
            x.append("        </buffer_role>\n");
        }
    }

    /** The CPU the analysis placed {@code task} (a key) on, or -1 when it is not analysed. */
    private static int cpuOf(ValidationReport r, String task) {
        for (ValidationReport.Cpu cpu : r.cpus()) {
            for (ResponseTimeAnalysis.Result res : cpu.results()) {
                if (res.task().key().equals(task)) {
                    return cpu.index();
                }
            }
        }
        return -1;
    }

    /** Where a buffer lies: its first analysed consumer's CPU, else its first analysed producer's, else CPU 0. */
    private static int bufferCpu(ValidationReport r, ChannelModel ch) {
        for (List<ChannelModel.End> ends : List.of(ch.consumers(), ch.producers())) {
            for (ChannelModel.End e : ends) {
                int cpu = cpuOf(r, e.task());
                if (cpu >= 0) {
                    return cpu;
                }
            }
        }
        return 0;
    }

    /** The CPUs an application's analysed tasks lie on, ascending; CPU 0 when it has none. */
    private static List<Integer> cpusOf(ValidationReport r, String app) {
        List<Integer> out = new ArrayList<>();
        for (ValidationReport.Cpu cpu : r.cpus()) {
            if (cpu.results().stream().anyMatch(res -> res.task().app().equals(app))) {
                out.add(cpu.index());
            }
        }
        for (ChannelModel ch : r.model().channels()) {
            int cpu = bufferCpu(r, ch);
            if (ch.app().equals(app) && !out.contains(cpu)) {
                out.add(cpu);
            }
        }
        if (out.isEmpty()) {
            out.add(0);
        }
        out.sort(null);
        return out;
    }

    /** An application's address space on {@code cpu}: its name on a cell of one CPU, else {@code app_cpuN}. */
    private static String addressSpace(ValidationReport r, String app, int cpu) {
        return identifier(r.cpus().size() == 1 ? app : app + "_cpu" + cpu);
    }

    /**
     * A Cheddar ADL name: a valid (Ada) identifier, a letter then letters, digits and single
     * underscores, none last. Other characters become underscores.
     */
    static String identifier(String name) {
        String id = name.replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_+|_+$", "");
        return id.isEmpty() ? "x" : !Character.isLetter(id.charAt(0)) ? "x_" + id : id;
    }

    private static Function<String, String> identifiers(Function<String, String> labels) {
        return key -> identifier(labels.apply(key));
    }

    private static Set<String> apps(ValidationReport r) {
        Set<String> apps = new LinkedHashSet<>();
        r.model().memory().forEach(f -> apps.add(f.app()));
        r.model().tasks().forEach(t -> apps.add(t.app()));
        return apps;
    }

    private static long scopeBytes(ValidationReport r, String app) {
        long sum = 0;
        for (MemoryFigure f : r.model().memory()) {
            if (f.app().equals(app) && !f.what().startsWith("channel ")) {
                sum += f.totalBytes();
            }
        }
        return sum;
    }

    /** The largest of 1 ms, 1 us, 1 ns dividing every exported time. */
    private static long unit(ValidationReport r) {
        List<Long> times = new ArrayList<>();
        for (ValidationReport.Cpu cpu : r.cpus()) {
            for (ResponseTimeAnalysis.Result res : cpu.results()) {
                Task t = res.task();
                times.addAll(List.of(t.periodNanos(), t.costNanos(), t.deadlineNanos(), t.jitterNanos(), res.blockingNanos()));
            }
        }
        for (long unit : new long[] {1_000_000, 1_000}) {
            if (times.stream().allMatch(v -> v % unit == 0)) {
                return unit;
            }
        }
        return 1;
    }

    private static void tag(StringBuilder x, int indent, String name, String value) {
        x.append(" ".repeat(indent)).append('<').append(name).append('>').append(esc(value))
                .append("</").append(name).append(">\n");
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
