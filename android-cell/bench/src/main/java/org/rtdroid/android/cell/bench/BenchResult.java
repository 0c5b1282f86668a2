package org.rtdroid.android.cell.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.rtdroid.json.JsonWriter;

/**
 * What the Android cell's benchmarks write, said once: a result in the bench's JSON format
 * (bench, started, command, one run, case fields, the host, rows, notes), each row's percentiles
 * from an HdrHistogram, and the raw samples under &lt;out&gt;/&lt;name&gt;.samples/run1/.
 */
final class BenchResult {
    /** The histograms' range: an hour in nanoseconds, 3 significant digits. */
    static final long HIGHEST_NANOS = 3_600_000_000_000L;

    private BenchResult() {
    }

    static Histogram histogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    /** Empties &lt;out&gt;/&lt;name&gt;.samples and returns its run1 directory, created. */
    static Path samplesDirectory(Path out, String name) throws IOException {
        Path samples = out.resolve(name + ".samples");
        deleteTree(samples);
        Path run = samples.resolve("run1");
        Files.createDirectories(run);
        return run;
    }

    /** A result's head: bench, started, command, runs, case_fields and the host it ran on. */
    static Map<String, Object> root(String bench, Instant started, String command, List<String> caseFields,
                                    boolean schedFifoPermitted) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bench", bench);
        root.put("started", started.toString());
        root.put("command", command);
        root.put("runs", 1);
        root.put("case_fields", caseFields);
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("cpus", Runtime.getRuntime().availableProcessors());
        host.put("kernel", firstLine("/proc/sys/kernel/osrelease"));
        host.put("preempt_rt", "1".equals(firstLine("/sys/kernel/realtime")));
        host.put("java", Runtime.version().toString());
        host.put("gc", "the Android cell's (jvm.args)");
        host.put("sched_fifo_permitted", schedFifoPermitted);
        root.put("host", host);
        return root;
    }

    /** A row's p50_us, p99_us, p999_us and max_us (null where the histogram is empty). */
    static void putPercentiles(Map<String, Object> row, Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        row.put("p50_us", empty ? null : h.getValueAtPercentile(50) / 1e3);
        row.put("p99_us", empty ? null : h.getValueAtPercentile(99) / 1e3);
        row.put("p999_us", empty ? null : h.getValueAtPercentile(99.9) / 1e3);
        row.put("max_us", empty ? null : h.getMaxValue() / 1e3);
    }

    /** Adds rows and notes to {@code root}, writes it to &lt;out&gt;/&lt;file&gt; and says so. */
    static Path write(Path out, String file, Map<String, Object> root, List<?> rows, String notes, String bench)
            throws IOException {
        root.put("rows", rows);
        root.put("notes", List.of(notes));
        Files.createDirectories(out);
        Path path = out.resolve(file);
        Files.writeString(path, JsonWriter.write(root));
        System.out.println(bench + ": wrote " + path);
        return path;
    }

    /** The first line of a file, trimmed; "?" where it cannot be read. */
    static String firstLine(String path) {
        try {
            return Files.readAllLines(Path.of(path)).get(0).trim();
        } catch (IOException | IndexOutOfBoundsException e) {
            return "?";
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
