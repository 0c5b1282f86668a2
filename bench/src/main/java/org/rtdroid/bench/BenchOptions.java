package org.rtdroid.bench;

import java.nio.file.Path;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;

/**
 * Command-line options shared by every benchmark (validated here, with a clear error each).
 *
 * @param secondsPerCase how long each (impl, case) runs; --quick shortens it for CI smoke runs
 * @param quick true for a smoke run (fewer cases where a benchmark has many)
 * @param cpu the CPU that real-time measuring threads are pinned to
 * @param out the output directory for JSON and PNG
 * @param python the Python interpreter that runs plot.py (null: no plot)
 * @param plotScript bench/plot.py (null: no plot)
 * @param full the seeds' sample counts and case lists (bench/figures' full form)
 * @param runs how many times the benchmark runs (worst cases over runs: the maximum of maxima)
 * @param secondsGiven whether --seconds was given (a full run otherwise takes the seed's duration)
 */
public record BenchOptions(double secondsPerCase, boolean quick, int cpu, Path out, String python, Path plotScript,
                           boolean full, int runs, boolean secondsGiven) {
    public static final String USAGE = """
            usage: org.rtdroid.bench.Main <looper|periodic|channels|alarm|sensor|sensor-papabench|tasks|...|NAME,NAME...|all> [options]
              --out DIR            output directory (default build/bench)
              --quick              smoke run: about 0.5 s per case and fewer cases (CI)
              --full               the seeds' sample counts and case lists (figures' full form)
              --runs N             run N times (1..100): each row keeps its run, worst_case the maxima
              --seconds S          seconds per (impl, case); default 8, quick 1
              --cpu N              CPU for the real-time measuring threads (default: the last allowed CPU)
              --python PATH        Python with matplotlib for the plot (default: no plot)
              --plot-script PATH   bench/plot.py
            """;

    public static BenchOptions parse(String[] args, int from) {
        double seconds = -1;
        boolean quick = false;
        boolean full = false;
        int runs = 1;
        int cpu = -1;
        Path out = Path.of("build/bench");
        String python = null;
        Path plot = null;
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> quick = true;
                case "--full" -> full = true;
                case "--runs" -> {
                    String v = value(args, ++i, a);
                    try {
                        runs = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--runs: \"" + v + "\" is not a number");
                    }
                    if (runs < 1 || runs > 100) {
                        throw new IllegalArgumentException("--runs: " + v + " is outside 1..100");
                    }
                }
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--python" -> python = value(args, ++i, a);
                case "--plot-script" -> plot = Path.of(value(args, ++i, a));
                case "--seconds" -> {
                    String v = value(args, ++i, a);
                    try {
                        seconds = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--seconds: \"" + v + "\" is not a number");
                    }
                    if (!(seconds > 0 && seconds <= 3600)) {
                        throw new IllegalArgumentException("--seconds: " + v + " is outside (0, 3600]");
                    }
                }
                case "--cpu" -> {
                    String v = value(args, ++i, a);
                    try {
                        cpu = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--cpu: \"" + v + "\" is not a CPU number");
                    }
                    if (!Linux.currentAffinity().contains(cpu)) {
                        throw new IllegalArgumentException("--cpu: CPU " + cpu + " is not one this process may use ("
                                + Linux.currentAffinity() + ")");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option \"" + a + "\"");
            }
        }
        if (quick && full) {
            throw new IllegalArgumentException("--quick and --full exclude each other");
        }
        boolean secondsGiven = seconds > 0;
        if (seconds < 0) {
            seconds = quick ? 0.5 : 8;
        }
        if (cpu < 0) {
            int[] allowed = Linux.currentAffinity().toArray();
            cpu = allowed[allowed.length - 1];
        }
        return new BenchOptions(seconds, quick, cpu, out, python, plot, full, runs, secondsGiven);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /**
     * Seconds per case: --seconds when given, else {@code seedSeconds} in a full run (the seed's
     * duration), else the default (8 s, quick 0.5 s).
     */
    public double secondsOr(double seedSeconds) {
        return secondsGiven || !full ? secondsPerCase : seedSeconds;
    }

    /**
     * Seconds per case: --seconds when given, else {@code quickSeconds} in a quick run (a benchmark
     * paced by the seed's long periods keeps the quick form short with fewer events of the same
     * shape), else as {@link #secondsOr}.
     */
    public double secondsFor(double quickSeconds, double seedSeconds) {
        return quick && !secondsGiven ? quickSeconds : secondsOr(seedSeconds);
    }

    /** The case list of this form: quick, default or full. */
    public int[] cases(int[] quickCases, int[] defaultCases, int[] fullCases) {
        return quick ? quickCases : full ? fullCases : defaultCases;
    }

    public CpuSet cpuSet() {
        return CpuSet.of(cpu);
    }

    public long nanosPerCase() {
        return (long) (secondsPerCase * 1e9);
    }
}
