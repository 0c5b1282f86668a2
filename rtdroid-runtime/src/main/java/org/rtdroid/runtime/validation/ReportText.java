package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The report for people: a task table per CPU, a memory table, a channel table, one verdict line. */
public final class ReportText {
    private ReportText() {}

    public static String render(ValidationReport r) {
        StringBuilder out = new StringBuilder();
        Cell cell = r.cell();
        java.util.function.Function<String, String> labels = Validation.labels(r.model());
        out.append("Validation for board ").append(cell.board()).append(": ").append(cell.cpus()).append(" CPU(s), rt budget ")
                .append(cell.budgetBytes()).append(" B\n\n");
        out.append("Tasks (fixed-priority preemptive, exact response-time analysis with jitter and blocking;\n"
                + "equal priorities are FIFO within their level, so each counts the others as interference)\n");
        if (cell.cpus() > 1) {
            out.append("Partitioned: each component on one CPU (its cpu pin, else first-fit decreasing); the RT cell\n"
                    + "pins the component's threads to that CPU, placed by the same function (Partition.assign)\n");
        }
        for (ValidationReport.Cpu cpu : r.cpus()) {
            int n = cpu.results().size();
            out.append(String.format(Locale.ROOT, "CPU %d: utilization %.1f %%, Liu-Layland bound %.1f %% (n=%d), hyperbolic product %.3f",
                    cpu.index(), 100 * cpu.utilization(), 100 * cpu.liuLaylandBound(), n, cpu.hyperbolicProduct()));
            if (!cpu.boundsApply()) {
                out.append(" (bounds do not apply: D < T, jitter, blocking or not rate-monotonic)\n");
            } else {
                boolean ll = cpu.utilization() <= cpu.liuLaylandBound() + 1e-12;
                boolean hyp = cpu.hyperbolicProduct() <= 2.0 + 1e-12;
                out.append(": Liu-Layland ").append(ll ? "holds" : "inconclusive").append(", hyperbolic ")
                        .append(hyp ? "holds" : "inconclusive").append('\n');
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"task", "app", "kind", "prio", "period/MIT", "cost", "jitter", "blocking", "WCRT",
                "deadline", "slack", "verdict", "source"});
            for (ResponseTimeAnalysis.Result res : cpu.results()) {
                Task t = res.task();
                rows.add(new String[] {labels.apply(t.key()), t.app(), t.kind().word(), Integer.toString(t.priority()),
                    Durations.format(t.periodNanos()), Durations.format(t.costNanos()), Durations.format(t.jitterNanos()),
                    Durations.format(res.blockingNanos()), (res.schedulable() ? "" : "> ") + Durations.format(res.wcrtNanos()),
                    Durations.format(t.deadlineNanos()), res.schedulable() ? Durations.format(res.slackNanos()) : "-",
                    res.schedulable() ? "ok" : "MISSES", t.source()});
            }
            table(out, rows);
        }
        out.append("\nMemory (total = persistent + release + task releases / nested receivers)\n");
        List<String[]> mem = new ArrayList<>();
        mem.add(new String[] {"component", "app", "persistent", "release", "children", "total", "source"});
        for (MemoryFigure f : r.model().memory()) {
            boolean channel = f.what().startsWith("channel ");
            mem.add(new String[] {f.what(), f.app(), channel ? "" : f.persistentBytes() + " B", channel ? "" : f.releaseBytes() + " B",
                channel ? "" : f.childrenBytes() + " B", f.totalBytes() + " B", f.source()});
        }
        mem.add(new String[] {"runtime", "-", "", "", "", cell.runtimeReservedBytes() + " B", "the runtime's own reservation"});
        table(out, mem);
        ValidationReport.Memory m = r.memory();
        out.append(String.format(Locale.ROOT, "cell: scopes %d B + channels %d B + runtime %d B = %d B %s rt_budget_bytes %d B: %s%n",
                m.scopeBytes(), m.channelBytes(), cell.runtimeReservedBytes(), m.totalBytes(), m.holds() ? "<=" : ">",
                cell.budgetBytes(), m.holds() ? "ok" : "OVER BUDGET"));
        out.append("\nChannels (worst-case queue occupancy per consumer)\n");
        List<String[]> ch = new ArrayList<>();
        ch.add(new String[] {"channel", "type", "capacity", "drop", "consumer", "occupancy", "verdict"});
        for (ValidationReport.ChannelResult c : r.channels()) {
            ch.add(new String[] {c.channel().name(), c.channel().type(), Integer.toString(c.channel().capacity()),
                c.channel().drop(), c.consumer(), c.worstOccupancy() < 0 ? "unbounded" : Long.toString(c.worstOccupancy()),
                (c.holds() ? "ok: " : "OVERFLOW: ") + c.verdict()});
        }
        table(out, ch);
        out.append('\n').append(verdictLine(r)).append('\n');
        for (String reason : r.reasons()) {
            out.append("  ").append(reason).append('\n');
        }
        return out.toString();
    }

    public static String verdictLine(ValidationReport r) {
        if (r.holds()) {
            int tasks = 0;
            for (ValidationReport.Cpu c : r.cpus()) {
                tasks += c.results().size();
            }
            return "Verdict: HOLDS: " + tasks + " task(s) schedulable, " + r.channels().size()
                    + " channel end(s) bounded, memory within budget";
        }
        return "Verdict: FAILS (" + r.reasons().size() + " reason(s)):";
    }

    private static void table(StringBuilder out, List<String[]> rows) {
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < row.length; i++) {
                line.append(row[i]);
                if (i < row.length - 1) {
                    line.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
