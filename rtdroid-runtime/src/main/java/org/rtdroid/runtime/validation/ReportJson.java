package org.rtdroid.runtime.validation;

import java.util.List;
import org.rtdroid.json.JsonWriter;

/**
 * The report for machines: one JSON object; times in nanoseconds, sizes in bytes, ratios with six
 * digits after the point. Key order is the reader's contract (tools/rtdroid's `validate --json`).
 */
public final class ReportJson {
    private static final int RATIO_DIGITS = 6;

    private ReportJson() {}

    public static String render(ValidationReport r) {
        JsonWriter w = new JsonWriter(4096).beginObject();
        w.field("holds", r.holds());
        w.name("reasons").beginArray();
        for (String reason : r.reasons()) {
            w.value(reason);
        }
        w.endArray();
        Cell c = r.cell();
        w.name("cell").beginObject()
                .field("board", c.board())
                .field("cpus", c.cpus())
                .field("budget_bytes", c.budgetBytes())
                .field("runtime_reserved_bytes", c.runtimeReservedBytes())
                .endObject();
        w.field("equal_priorities", "fifo within the level: each counts the others as interference");
        w.name("cpu_results").beginArray();
        for (ValidationReport.Cpu cpu : r.cpus()) {
            cpu(w, cpu);
        }
        w.endArray();
        w.name("memory").beginObject()
                .field("scope_bytes", r.memory().scopeBytes())
                .field("channel_bytes", r.memory().channelBytes())
                .field("total_bytes", r.memory().totalBytes())
                .field("holds", r.memory().holds())
                .name("figures").beginArray();
        for (MemoryFigure f : r.model().memory()) {
            w.beginObject()
                    .field("what", f.what())
                    .field("app", f.app())
                    .field("persistent_bytes", f.persistentBytes())
                    .field("release_bytes", f.releaseBytes())
                    .field("children_bytes", f.childrenBytes())
                    .field("total_bytes", f.totalBytes())
                    .field("source", f.source())
                    .endObject();
        }
        w.endArray().endObject();
        w.name("channels").beginArray();
        for (ValidationReport.ChannelResult ch : r.channels()) {
            channel(w, ch);
        }
        return w.endArray().endObject().toString();
    }

    private static void cpu(JsonWriter w, ValidationReport.Cpu cpu) {
        w.beginObject()
                .field("cpu", cpu.index())
                .field("utilization", cpu.utilization(), RATIO_DIGITS)
                .field("liu_layland_bound", cpu.liuLaylandBound(), RATIO_DIGITS)
                .field("hyperbolic_product", cpu.hyperbolicProduct(), RATIO_DIGITS)
                .field("bounds_apply", cpu.boundsApply())
                .name("tasks").beginArray();
        List<ResponseTimeAnalysis.Result> results = cpu.results();
        for (ResponseTimeAnalysis.Result res : results) {
            Task t = res.task();
            w.beginObject()
                    .field("name", t.name())
                    .field("key", t.key())
                    .field("app", t.app())
                    .field("kind", t.kind().word())
                    .field("priority", t.priority())
                    .field("period_ns", t.periodNanos())
                    .field("cost_ns", t.costNanos())
                    .field("jitter_ns", t.jitterNanos())
                    .field("blocking_ns", res.blockingNanos())
                    .field("wcrt_ns", res.wcrtNanos())
                    .field("deadline_ns", t.deadlineNanos())
                    .field("slack_ns", res.slackNanos())
                    .field("schedulable", res.schedulable())
                    .field("source", t.source())
                    .endObject();
        }
        w.endArray().endObject();
    }

    private static void channel(JsonWriter w, ValidationReport.ChannelResult ch) {
        w.beginObject()
                .field("name", ch.channel().name())
                .field("app", ch.channel().app())
                .field("type", ch.channel().type())
                .field("capacity", ch.channel().capacity())
                .field("drop", ch.channel().drop())
                .field("consumer", ch.consumer());
        // -1: no bound was computed for this channel (the verdict says why)
        if (ch.worstOccupancy() < 0) {
            w.field("worst_occupancy", (String) null);
        } else {
            w.field("worst_occupancy", ch.worstOccupancy());
        }
        w.field("holds", ch.holds())
                .field("verdict", ch.verdict())
                .field("source", ch.channel().source())
                .endObject();
    }
}
