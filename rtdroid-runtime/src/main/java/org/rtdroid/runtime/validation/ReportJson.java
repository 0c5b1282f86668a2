package org.rtdroid.runtime.validation;

import java.util.List;
import java.util.Locale;

/** The report for machines: one JSON object; times in nanoseconds, sizes in bytes. */
public final class ReportJson {
    private ReportJson() {}

    public static String render(ValidationReport r) {
        StringBuilder o = new StringBuilder("{");
        field(o, "holds").append(r.holds()).append(',');
        field(o, "reasons");
        strings(o, r.reasons());
        o.append(',');
        Cell c = r.cell();
        field(o, "cell").append('{');
        field(o, "board").append(str(c.board())).append(',');
        field(o, "cpus").append(c.cpus()).append(',');
        field(o, "budget_bytes").append(c.budgetBytes()).append(',');
        field(o, "runtime_reserved_bytes").append(c.runtimeReservedBytes()).append("},");
        field(o, "equal_priorities").append(str("fifo within the level: each counts the others as interference")).append(',');
        field(o, "cpu_results").append('[');
        for (int i = 0; i < r.cpus().size(); i++) {
            ValidationReport.Cpu cpu = r.cpus().get(i);
            o.append(i == 0 ? "{" : ",{");
            field(o, "cpu").append(cpu.index()).append(',');
            field(o, "utilization").append(num(cpu.utilization())).append(',');
            field(o, "liu_layland_bound").append(num(cpu.liuLaylandBound())).append(',');
            field(o, "hyperbolic_product").append(num(cpu.hyperbolicProduct())).append(',');
            field(o, "bounds_apply").append(cpu.boundsApply()).append(',');
            field(o, "tasks").append('[');
            for (int k = 0; k < cpu.results().size(); k++) {
                ResponseTimeAnalysis.Result res = cpu.results().get(k);
                Task t = res.task();
                o.append(k == 0 ? "{" : ",{");
                field(o, "name").append(str(t.name())).append(',');
                field(o, "key").append(str(t.key())).append(',');
                field(o, "app").append(str(t.app())).append(',');
                field(o, "kind").append(str(t.kind().word())).append(',');
                field(o, "priority").append(t.priority()).append(',');
                field(o, "period_ns").append(t.periodNanos()).append(',');
                field(o, "cost_ns").append(t.costNanos()).append(',');
                field(o, "jitter_ns").append(t.jitterNanos()).append(',');
                field(o, "blocking_ns").append(res.blockingNanos()).append(',');
                field(o, "wcrt_ns").append(res.wcrtNanos()).append(',');
                field(o, "deadline_ns").append(t.deadlineNanos()).append(',');
                field(o, "slack_ns").append(res.slackNanos()).append(',');
                field(o, "schedulable").append(res.schedulable()).append(',');
                field(o, "source").append(str(t.source())).append('}');
            }
            o.append("]}");
        }
        o.append("],");
        field(o, "memory").append('{');
        field(o, "scope_bytes").append(r.memory().scopeBytes()).append(',');
        field(o, "channel_bytes").append(r.memory().channelBytes()).append(',');
        field(o, "total_bytes").append(r.memory().totalBytes()).append(',');
        field(o, "holds").append(r.memory().holds()).append(',');
        field(o, "figures").append('[');
        List<MemoryFigure> figures = r.model().memory();
        for (int i = 0; i < figures.size(); i++) {
            MemoryFigure f = figures.get(i);
            o.append(i == 0 ? "{" : ",{");
            field(o, "what").append(str(f.what())).append(',');
            field(o, "app").append(str(f.app())).append(',');
            field(o, "persistent_bytes").append(f.persistentBytes()).append(',');
            field(o, "release_bytes").append(f.releaseBytes()).append(',');
            field(o, "children_bytes").append(f.childrenBytes()).append(',');
            field(o, "total_bytes").append(f.totalBytes()).append(',');
            field(o, "source").append(str(f.source())).append('}');
        }
        o.append("]},");
        field(o, "channels").append('[');
        for (int i = 0; i < r.channels().size(); i++) {
            ValidationReport.ChannelResult ch = r.channels().get(i);
            o.append(i == 0 ? "{" : ",{");
            field(o, "name").append(str(ch.channel().name())).append(',');
            field(o, "app").append(str(ch.channel().app())).append(',');
            field(o, "type").append(str(ch.channel().type())).append(',');
            field(o, "capacity").append(ch.channel().capacity()).append(',');
            field(o, "drop").append(str(ch.channel().drop())).append(',');
            field(o, "consumer").append(str(ch.consumer())).append(',');
            field(o, "worst_occupancy").append(ch.worstOccupancy() < 0 ? "null" : Long.toString(ch.worstOccupancy())).append(',');
            field(o, "holds").append(ch.holds()).append(',');
            field(o, "verdict").append(str(ch.verdict())).append(',');
            field(o, "source").append(str(ch.channel().source())).append('}');
        }
        o.append("]}");
        return o.toString();
    }

    private static StringBuilder field(StringBuilder o, String name) {
        return o.append(str(name)).append(':');
    }

    private static void strings(StringBuilder o, List<String> items) {
        o.append('[');
        for (int i = 0; i < items.size(); i++) {
            o.append(i == 0 ? "" : ",").append(str(items.get(i)));
        }
        o.append(']');
    }

    private static String num(double d) {
        return String.format(Locale.ROOT, "%.6f", d);
    }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
