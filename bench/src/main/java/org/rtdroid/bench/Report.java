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
 * {@code {"bench", "started", "command", "runs", "case_fields", "host": {...}, "rows": [{"impl",
 * <case fields>, "count", "p50_us", "p99_us", "p999_us", "max_us", <extra>, "run", "samples"}],
 * "worst_case": [...], "goals": [{"text", "measured", "met"}], "notes": [...]}}.
 *
 * <p>A row given its {@link Samples} writes them at once as CSV under
 * &lt;out&gt;/&lt;name&gt;.samples/ (one file per row, named by run, impl and case) and names the
 * file, relative to the JSON, in its {@code samples} field. With {@code --runs N} every row and goal
 * carries its {@code run} (1..N) and {@code worst_case} has one entry per (impl, case): the maximum
 * of the runs' maxima, as OSADL reports a worst case, with each run's maximum and p99 beside it.
 */
public final class Report {
    /** One measured (impl, case): what the JSON row says, kept for goals and the console table. */
    public record Row(String impl, Map<String, Object> cases, long count, double p50Micros, double p99Micros,
            double p999Micros, double maxMicros, Map<String, Object> extra) {}

    private final String bench;
    private final Path out;
    private int run = 1;
    private int runs = 1;
    private String command = "";
    private final List<String> caseFields = new ArrayList<>();
    private final List<Integer> rowRuns = new ArrayList<>();
    private final List<String> rowSamples = new ArrayList<>();
    private final Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private final List<Row> rows = new ArrayList<>();
    private final List<Map<String, Object>> goals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, Object> sections = new LinkedHashMap<>();

    public Report(String bench) {
        this(bench, Path.of("build/bench"));
    }

    /** @param out where the JSON goes; raw samples go under out/&lt;bench&gt;.samples/ */
    public Report(String bench, Path out) {
        this.bench = bench;
        this.out = out;
    }

    /** The directory that holds this benchmark's raw samples. */
    public Path samplesDir() {
        return out.resolve(bench + ".samples");
    }

    /** The run the next rows belong to (1..runs). */
    public void run(int run, int runs) {
        this.run = run;
        this.runs = runs;
    }

    public int run() {
        return run;
    }

    /** The command line that produced this report, recorded in the JSON. */
    public void command(String command) {
        this.command = command;
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
        return row(impl, cases, h, extra, null);
    }

    /**
     * Adds a row and writes its raw samples (when not null) as CSV beside the JSON.
     *
     * @throws java.io.UncheckedIOException if the samples cannot be written
     */
    public Row row(String impl, Map<String, Object> cases, Histogram h, Map<String, Object> extra, Samples samples) {
        for (String k : cases.keySet()) {
            if (!caseFields.contains(k)) {
                caseFields.add(k);
            }
        }
        String samplesFile = null;
        if (samples != null) {
            StringBuilder name = new StringBuilder("run" + run + "/" + String.format("%03d", rows.size() + 1) + "_" + impl);
            for (Object v : cases.values()) {
                name.append('_').append(v);
            }
            Path file = samplesDir().resolve(name.toString().replaceAll("[^A-Za-z0-9._/-]", "-") + ".csv");
            try {
                samples.writeCsv(file);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("samples of " + impl + " " + cases + ": " + file, e);
            }
            samplesFile = out.toAbsolutePath().relativize(file.toAbsolutePath()).toString();
            if (samples.overflow() > 0) {
                extra = new LinkedHashMap<>(extra);
                extra.put("samples_not_kept", samples.overflow());
            }
        }
        rowRuns.add(run);
        rowSamples.add(samplesFile);
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
        goal(text, measured, Boolean.valueOf(met));
    }

    /**
     * Records a goal and its verdict: met, not met, or null: not judged (the run's witness shows
     * the platform alone missing it in the same interval; the measured text says so).
     */
    public void goal(String text, String measured, Boolean met) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("text", text);
        g.put("measured", measured);
        g.put("met", met);
        if (runs > 1) {
            g.put("run", run);
        }
        goals.add(g);
        System.out.println("  goal " + (met == null ? "NOT JUDGED" : met ? "MET    " : "NOT MET") + ": " + text + " -- " + measured);
    }

    /** A top-level JSON entry of its own (a table, a per-sample series for the plot). */
    public void section(String key, Object value) {
        sections.put(key, value);
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
        Path file = dir.resolve(bench + ".json");
        Files.writeString(file, json());
        return file;
    }

    /** The report as one JSON document (what {@link #write} writes). */
    public String json() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bench", bench);
        root.put("started", started.toString());
        root.put("command", command);
        root.put("runs", runs);
        root.put("case_fields", caseFields);
        root.put("host", host());
        List<Object> rs = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("impl", r.impl());
            m.putAll(r.cases());
            m.put("count", r.count());
            m.put("p50_us", r.p50Micros());
            m.put("p99_us", r.p99Micros());
            m.put("p999_us", r.p999Micros());
            m.put("max_us", r.maxMicros());
            m.putAll(r.extra());
            m.put("run", rowRuns.get(i));
            if (rowSamples.get(i) != null) {
                m.put("samples", rowSamples.get(i));
            }
            rs.add(m);
        }
        root.put("rows", rs);
        if (runs > 1) {
            root.put("worst_case", worstCase());
        }
        root.put("goals", goals);
        root.put("notes", notes);
        root.putAll(sections);
        return JsonWriter.write(root);
    }

    /** Per (impl, case): the maximum of the runs' maxima, each run's maximum and p99, their mean and sd. */
    private List<Object> worstCase() {
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) {
            groups.computeIfAbsent(r.impl() + " " + r.cases(), k -> new ArrayList<>()).add(r);
        }
        List<Object> out = new ArrayList<>();
        for (List<Row> g : groups.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("impl", g.get(0).impl());
            m.putAll(g.get(0).cases());
            List<Double> maxima = new ArrayList<>();
            List<Double> p99s = new ArrayList<>();
            double worst = Double.NaN;
            double sum = 0;
            for (Row r : g) {
                maxima.add(r.maxMicros());
                p99s.add(r.p99Micros());
                if (!Double.isNaN(r.maxMicros())) {
                    worst = Double.isNaN(worst) ? r.maxMicros() : Math.max(worst, r.maxMicros());
                    sum += r.maxMicros();
                }
            }
            long measured = maxima.stream().filter(v -> !Double.isNaN(v)).count();
            double mean = measured == 0 ? Double.NaN : sum / measured;
            double var = 0;
            for (double v : maxima) {
                if (!Double.isNaN(v)) {
                    var += (v - mean) * (v - mean);
                }
            }
            m.put("runs", g.size());
            m.put("max_of_max_us", worst);
            m.put("mean_of_max_us", Math.round(mean * 100) / 100.0);
            m.put("sd_of_max_us", measured < 2 ? 0.0 : Math.round(Math.sqrt(var / (measured - 1)) * 100) / 100.0);
            m.put("max_us_per_run", maxima);
            m.put("p99_us_per_run", p99s);
            out.add(m);
        }
        return out;
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
