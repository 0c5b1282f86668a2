package org.rtdroid.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * {@code Main <looper|periodic|channels|alarm|sensor|...|NAME,NAME...|all> [--quick] [--seconds S] [--cpu N] [--out DIR]
 * [--python PY --plot-script bench/plot.py]}: runs benchmarks (a comma-separated list: each in turn, in this JVM, with the same options), writes &lt;out&gt;/&lt;name&gt;.json
 * and, given a Python, &lt;out&gt;/&lt;name&gt;.png. Exit status 0 even when a goal is not met (goals are
 * reported, not enforced); 2 on bad arguments; 1 if a benchmark failed to run.
 */
public final class Main {
    private Main() {}

    static Map<String, Benchmark> benchmarks() {
        Map<String, Benchmark> all = new LinkedHashMap<>();
        for (Benchmark b : List.of(new LooperBench(), new PeriodicBench(), new ChannelsBench(), new AlarmBench(), new SensorBench(),
                new ChannelEventsBench(), new ReflectionBench(), new TasksBench(), new PapabenchSensorBench())) {
            all.put(b.name(), b);
        }
        return all;
    }

    public static void main(String[] args) {
        Map<String, Benchmark> all = benchmarks();
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.print(BenchOptions.USAGE);
            System.exit(args.length == 0 ? 2 : 0);
        }
        BenchOptions options;
        List<Benchmark> selected = new ArrayList<>();
        try {
            if (args[0].equals("all")) {
                selected.addAll(all.values());
            } else {
                // a comma-separated list runs those benchmarks one after the other in this one JVM
                for (String name : args[0].split(",", -1)) {
                    if (!all.containsKey(name)) {
                        throw new IllegalArgumentException("unknown benchmark \"" + name + "\" (choose from " + all.keySet()
                                + ", a comma-separated list of them, or all)");
                    }
                    selected.add(all.get(name));
                }
            }
            options = BenchOptions.parse(args, 1);
        } catch (IllegalArgumentException e) {
            System.err.println("rtdroid-bench: " + e.getMessage());
            System.err.print(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        // Heap is committed (-Xms = -Xmx, AlwaysPreTouch): lock it so page faults do not add latency.
        RealtimeThreads.lockMemory();
        // cyclictest holds /dev/cpu_dma_latency at 0 while it runs; hold it for the whole run so
        // every participant gets the same CPU idle policy.
        RealtimeThreads.holdCpuIdleLatencyZero();
        int failed = 0;
        for (Benchmark b : selected) {
            System.out.println("== " + b.name() + ": " + b.description()
                    + (options.quick() ? " (quick)" : options.full() ? " (full)" : "")
                    + (options.runs() > 1 ? ", " + options.runs() + " runs" : ""));
            Report report = new Report(b.name(), options.out());
            report.command(commandLine(b.name(), args));
            try {
                deleteTree(report.samplesDir());
                for (int run = 1; run <= options.runs(); run++) {
                    if (options.runs() > 1) {
                        System.out.println("-- run " + run + " of " + options.runs());
                    }
                    report.run(run, options.runs());
                    b.run(options, report);
                }
                Path json = report.write(options.out());
                System.out.println("  wrote " + json);
                plot(options, json);
            } catch (Exception e) {
                failed++;
                System.err.println("rtdroid-bench: " + b.name() + " failed: " + e);
                e.printStackTrace();
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /**
     * One benchmark inside a cell ({@code rtdroid-bench} as the RT cell's JVM probe runs it:
     * {@code bench <name> [options]}, protocols.md "Probes"): the same run as {@link #main}, its
     * report as one JSON document on {@code doc} (the probe's output, which the host labels with
     * the board and the cell's time base), its progress on {@code progress} (the cell's console).
     * Only benchmarks that need nothing but the cell's runtime may run there.
     *
     * @return 0, 2 on a bad command line, 1 when the benchmark failed
     */
    public static int inCell(String[] args, PrintStream doc, PrintStream progress) {
        Map<String, Benchmark> all = benchmarks();
        BenchOptions options;
        Benchmark b;
        try {
            if (args.length == 0 || !IN_CELL.contains(args[0])) {
                throw new IllegalArgumentException("a cell runs one of " + IN_CELL + (args.length == 0 ? "" : ", not \"" + args[0] + "\""));
            }
            b = all.get(args[0]);
            options = BenchOptions.parse(args, 1);
        } catch (IllegalArgumentException e) {
            progress.println("rtdroid-bench: " + e.getMessage());
            return 2;
        }
        RealtimeThreads.lockMemory();
        RealtimeThreads.holdCpuIdleLatencyZero();
        PrintStream out = System.out;
        System.setOut(progress);  // a benchmark's progress lines: the console, not the document
        try {
            progress.println("== " + b.name() + " in the cell: " + b.description() + (options.quick() ? " (quick)" : ""));
            Report report = new Report(b.name(), options.out());
            report.command(commandLine(b.name(), args));
            report.run(1, 1);
            b.run(options, report);
            doc.print(report.json());
            doc.flush();
            return 0;
        } catch (Exception e) {
            progress.println("rtdroid-bench: " + b.name() + " failed: " + e);
            e.printStackTrace(progress);
            return 1;
        } finally {
            System.setOut(out);
        }
    }

    /** The benchmarks a cell runs: their participants are the runtime's and plain threads, nothing of the host's. */
    static final List<String> IN_CELL = List.of("reflection");

    /** The command as a user types it: bench/run.sh, the benchmark and its options, without the paths run.sh adds. */
    static String commandLine(String name, String[] args) {
        StringBuilder sb = new StringBuilder("bench/run.sh ").append(name);
        for (int i = 1; i < args.length; i++) {
            if (List.of("--out", "--python", "--plot-script").contains(args[i])) {
                i++;
            } else {
                sb.append(' ').append(args[i]);
            }
        }
        return sb.toString();
    }

    /** Removes a previous run's raw samples, so none of them is taken for this run's. */
    static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void plot(BenchOptions o, Path json) {
        if (o.python() == null || o.plotScript() == null) {
            return;
        }
        if (!Files.isRegularFile(o.plotScript())) {
            System.err.println("rtdroid-bench: no plot: " + o.plotScript() + " does not exist");
            return;
        }
        Path png = Path.of(json.toString().replaceAll("\\.json$", ".png"));
        try {
            Process p = new ProcessBuilder(o.python(), o.plotScript().toString(), json.toString(), png.toString())
                    .inheritIO().start();
            if (p.waitFor() == 0) {
                System.out.println("  wrote " + png);
            } else {
                System.err.println("rtdroid-bench: plot.py exited " + p.exitValue() + " (JSON is still written)");
            }
        } catch (Exception e) {
            System.err.println("rtdroid-bench: no plot: " + e.getMessage());
        }
    }
}
