package org.rtdroid.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.json.JsonWriter;

/**
 * The result of one benchmark run, written as build/bench/&lt;name&gt;.json:
 * {@code {"bench", "started", "host": {...}, "rows": [{"impl", <case fields>, "count", "p50_us",
 * "p99_us", "p999_us", "max_us", <extra>}], "goals": [{"text", "measured", "met"}], "notes": [...]}}.
 */
public final class Report {
    /** One measured (impl, case): what the JSON row says, kept for goals and the console table. */
    public record Row(String impl, Map<String, Object> cases, long count, double p50Micros, double p99Micros,
            double p999Micros, double maxMicros, Map<String, Object> extra) {}

    private final String bench;
    private final Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private final List<Row> rows = new ArrayList<>();
    private final List<Map<String, Object>> goals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    public Report(String bench) {
        this.bench = bench;
    }

    public String bench() {
        return bench;
    }

    /**
     * Adds a row from a histogram in nanoseconds.
     *
     * @param cases case fields in order, e.g. {@code Map.of("noise_threads", 300)} (use a LinkedHashMap for order)
     * @param extra additional per-row facts (e.g. dropped messages), may be empty
     */
    public Row row(String impl, Map<String, Object> cases, Histogram h, Map<String, Object> extra) {
        long n = h.getTotalCount();
        Row r = new Row(impl, cases, n,
                n == 0 ? Double.NaN : micros(h.getValueAtPercentile(50)),
                n == 0 ? Double.NaN : micros(h.getValueAtPercentile(99)),
                n == 0 ? Double.NaN : micros(h.getValueAtPercentile(99.9)),
                n == 0 ? Double.NaN : micros(h.getMaxValue()), extra);
        rows.add(r);
        System.out.printf("  %-11s %-40s count %8d  p50 %10.1f us  p99 %10.1f us  p99.9 %10.1f us  max %10.1f us%n",
                impl, cases, n, r.p50Micros(), r.p99Micros(), r.p999Micros(), r.maxMicros());
        return r;
    }

    public List<Row> rows() {
        return rows;
    }

    /** Records a goal and whether it was met, with the measured figure in words. */
    public void goal(String text, String measured, boolean met) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("text", text);
        g.put("measured", measured);
        g.put("met", met);
        goals.add(g);
        System.out.println("  goal " + (met ? "MET    " : "NOT MET") + ": " + text + " -- " + measured);
    }

    public void note(String text) {
        notes.add(text);
        System.out.println("  note: " + text);
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 10.0) / 100.0; // 0.01 us resolution
    }

    public Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bench", bench);
        root.put("started", started.toString());
        root.put("host", host());
        List<Object> rs = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("impl", r.impl());
            m.putAll(r.cases());
            m.put("count", r.count());
            m.put("p50_us", r.p50Micros());
            m.put("p99_us", r.p99Micros());
            m.put("p999_us", r.p999Micros());
            m.put("max_us", r.maxMicros());
            m.putAll(r.extra());
            rs.add(m);
        }
        root.put("rows", rs);
        root.put("goals", goals);
        root.put("notes", notes);
        Path file = dir.resolve(bench + ".json");
        Files.writeString(file, JsonWriter.write(root));
        return file;
    }

    static Map<String, Object> host() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("cpus", Runtime.getRuntime().availableProcessors());
        h.put("kernel", readFirstLine("/proc/sys/kernel/osrelease"));
        h.put("preempt_rt", "1".equals(readFirstLine("/sys/kernel/realtime")));
        h.put("java", Runtime.version().toString());
        h.put("gc", gcName());
        h.put("sched_fifo_permitted", RealtimeThreads.schedFifoPermitted());
        h.put("memory_locked", Boolean.TRUE.equals(RealtimeThreads.memoryLocked()));
        h.put("cpu_dma_latency_zero", RealtimeThreads.cpuIdleLatencyHeld());
        h.put("warnings", RealtimeThreads.warnings());
        return h;
    }

    private static String gcName() {
        List<String> names = new ArrayList<>();
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            names.add(gc.getName());
        }
        return String.join(", ", names);
    }

    private static String readFirstLine(String path) {
        try {
            List<String> lines = Files.readAllLines(Path.of(path));
            return lines.isEmpty() ? "" : lines.get(0).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
