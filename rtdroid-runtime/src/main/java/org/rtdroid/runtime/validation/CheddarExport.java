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
 */
public final class CheddarExport {
    private CheddarExport() {}

    public static String render(ValidationReport r) {
        long unit = unit(r);
        String unitName = unit == 1_000_000 ? "1 ms" : unit == 1_000 ? "1 us" : "1 ns";
        Function<String, String> labels = Validation.labels(r.model());
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
            x.append("    <address_space id=\"").append(esc(app)).append("\">\n");
            tag(x, 6, "object_type", "ADDRESS_SPACE_OBJECT_TYPE");
            tag(x, 6, "name", app);
            tag(x, 6, "cpu_name", "cpu0");
            tag(x, 6, "text_memory_size", "0");
            tag(x, 6, "stack_memory_size", "0");
            tag(x, 6, "data_memory_size", Long.toString(scopeBytes(r, app)));
            tag(x, 6, "heap_memory_size", "0");
            x.append("    </address_space>\n");
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
                tag(x, 6, "address_space_name", t.app());
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
            x.append("    <buffer id=\"").append(esc(ch.name())).append("\">\n");
            tag(x, 6, "object_type", "BUFFER_OBJECT_TYPE");
            tag(x, 6, "name", ch.name());
            tag(x, 6, "cpu_name", "cpu0");
            tag(x, 6, "address_space_name", ch.app());
            tag(x, 6, "queueing_system_type", "QS_PP1");
            tag(x, 6, "size", Integer.toString(ch.capacity()));
            x.append("      <roles>\n");
            role(x, ch.producers(), "QUEUING_PRODUCER", r, labels);
            role(x, ch.consumers(), "QUEUING_CONSUMER", r, labels);
            x.append("      </roles>\n    </buffer>\n");
        }
        x.append("  </buffers>\n</cheddar>\n");
        return x.toString();
    }

    private static void role(StringBuilder x, List<ChannelModel.End> ends, String role, ValidationReport r,
                             Function<String, String> labels) {
        for (ChannelModel.End e : ends) {
            if (!analysed(r, e.task())) {
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

    private static boolean analysed(ValidationReport r, String task) {
        for (ValidationReport.Cpu cpu : r.cpus()) {
            for (ResponseTimeAnalysis.Result res : cpu.results()) {
                if (res.task().key().equals(task)) {
                    return true;
                }
            }
        }
        return false;
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
