package org.rtdroid.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.rtdroid.bench.tasks.CochlearRtsj;
import org.rtdroid.bench.tasks.PapabenchRtsj;
import org.rtdroid.bench.tasks.RtdroidApp;
import org.rtdroid.bench.tasks.TaskDurations;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.sensor.sim.FifoInputRoot;

/**
 * The dissertation's Table 4.2 and Figs. 4.19-4.23 (4.5.2): the execution duration of each release
 * of an application's measured task, in its RTDroid version ({@code impl=rtdroid}: the example app
 * deployed from its manifest into a runtime pinned to the bench CPU) and its RTSJ-style version
 * ({@code impl=rtsj}: the same logic, {@code rtdroid-app-logic}, on plain real-time threads with
 * shared buffers; {@code tasks/}); the Android version runs in the Android cell's benchmark module
 * ({@code android-cell/bench/run.sh tasks}). Apps: {@code cochlear} (the ProcessingService's 8 ms
 * task: acquire 128 samples, process them, send the output on; deadline 8 ms) and {@code papabench}
 * (jPapaBench's 14 tasks, the autopilot's 50 ms Stabilization task measured; in the RTDroid version
 * the simulator's infrared frames reach the autopilot through the sensor path, here over FIFOs
 * standing in for the input devices). A release's duration
 * is from its job's begin to its end; a deadline is missed when the job ends after its release plus
 * the deadline. Releases per impl: the seed's 40,000 (cochlear) and 91,840 (papabench) with
 * {@code --full}, 5,000 and 1,000 by default, 60 and 12 quick; the first {@value #WARMUP_RELEASES}
 * (cochlear; {@value #WARMUP_RELEASES_QUICK} quick) and {@value #PAPABENCH_WARMUP} (papabench; 3 quick) releases are left out (the JIT's warm-up). Rows add
 * {@code mean_us}, {@code sd_us}, {@code deadline_misses}; each release is a raw sample
 * ({@code release_ns,start_ns,duration_ns}).
 */
final class TasksBench implements Benchmark {
    static final int WARMUP_RELEASES = 125;
    static final int WARMUP_RELEASES_QUICK = 40;
    static final int COCHLEAR_FULL = 40_000;
    static final int PAPABENCH_WARMUP = 20;
    static final int PAPABENCH_FULL = 91_840;

    @Override
    public String name() {
        return "tasks";
    }

    @Override
    public String description() {
        return "Table 4.2: task execution durations, RTDroid vs the RTSJ-style baseline";
    }

    /** The examples' built apps: rtdroid-runtime/examples/target/apps under the source tree. */
    static Path apps() {
        String home = System.getProperty("rtdroid.home", System.getenv().getOrDefault("RTDROID_HOME", "."));
        return Path.of(home, "rtdroid-runtime", "examples", "target", "apps");
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        CpuSet cpu = o.cpuSet();
        int releases = o.quick() ? 60 : o.full() ? COCHLEAR_FULL : 5_000;
        int warmup = o.quick() ? WARMUP_RELEASES_QUICK : WARMUP_RELEASES;
        double seconds = (releases + warmup) * CochlearRtsj.PERIOD_NANOS / 1e9;
        Map<String, TaskDurations> byImpl = new LinkedHashMap<>();
        try (Watchdog.Phase phase = Watchdog.phase("tasks cochlear rtdroid", seconds * 2 + 120);
             RtdroidApp app = new RtdroidApp(cpu, apps(), "cochlear")) {
            TaskDurations d = new TaskDurations(releases, CochlearRtsj.PERIOD_NANOS, warmup);
            app.collect("ProcessingService", "processingTask", d, (long) (seconds * 2e9) + 60_000_000_000L);
            byImpl.put("rtdroid", d);
            row(report, "rtdroid", "cochlear", "processingTask", d, Map.of());
        }
        System.gc();
        try (Watchdog.Phase phase = Watchdog.phase("tasks cochlear rtsj", seconds * 2 + 120)) {
            TaskDurations d = new TaskDurations(releases, CochlearRtsj.PERIOD_NANOS, warmup);
            CochlearRtsj rtsj = new CochlearRtsj();
            long violations = rtsj.run(cpu, d);
            byImpl.put("rtsj", d);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("output_violations", violations);
            extra.put("blocks_missing", rtsj.blocksMissing());
            row(report, "rtsj", "cochlear", "processingTask", d, extra);
        }
        papabench(o, cpu, report);
        TaskDurations rt = byImpl.get("rtdroid");
        TaskDurations rtsj = byImpl.get("rtsj");
        report.goal("cochlear: RTDroid misses no deadline (Table 4.2: 0)", rt.deadlineMisses() + " of " + rt.count(),
                rt.deadlineMisses() == 0);
        report.note(String.format(Locale.ROOT, "cochlear: mean %.1f us (sd %.1f) RTDroid vs %.1f us (sd %.1f) RTSJ-style: %.2fx",
                rt.meanMicros(), rt.sdMicros(), rtsj.meanMicros(), rtsj.sdMicros(), rt.meanMicros() / rtsj.meanMicros()));
        report.note("duration = the job's begin to its end; deadline missed = ended after release + deadline; the first "
                + warmup + " releases left out; all threads on CPU " + o.cpu() + "; rtsj: SCHED_FIFO 90/89/88"
                + " (recording, processing, output), shared buffers behind monitors, the same SignalPath and SpeechSource");
    }

    /** jPapaBench's Stabilization task (50 ms) in both versions. */
    private static void papabench(BenchOptions o, CpuSet cpu, Report report) throws Exception {
        int releases = o.quick() ? 12 : o.full() ? PAPABENCH_FULL : 1_000;
        long period = PapabenchRtsj.STABILIZATION_PERIOD_NANOS;
        int warmup = o.quick() ? 3 : PAPABENCH_WARMUP;
        double seconds = (releases + warmup) * period / 1e9;
        TaskDurations rt = new TaskDurations(releases, period, warmup);
        // a host has no uinput device the simulator could write: FIFOs stand in for the input devices
        try (FifoInputRoot devices = FifoInputRoot.create("rtdroid-bench-input-");
             Watchdog.Phase phase = Watchdog.phase("tasks papabench rtdroid", seconds * 2 + 120);
             RtdroidApp app = new RtdroidApp(cpu, apps(), "autopilot")) {
            app.collect("AutopilotService", "stabilization", rt, (long) (seconds * 2e9) + 60_000_000_000L);
            row(report, "rtdroid", "papabench", "stabilization", rt, Map.of());
        }
        System.gc();
        TaskDurations rtsj = new TaskDurations(releases, period, warmup);
        try (Watchdog.Phase phase = Watchdog.phase("tasks papabench rtsj", seconds * 2 + 120)) {
            long fixes = new PapabenchRtsj().run(cpu, rtsj);
            row(report, "rtsj", "papabench", "stabilization", rtsj, Map.of("gps_fixes", fixes));
        }
        report.goal("papabench: RTDroid's Stabilization misses no deadline (Table 4.2: 0)",
                rt.deadlineMisses() + " of " + rt.count(), rt.deadlineMisses() == 0);
        report.note(String.format(Locale.ROOT, "papabench stabilization: mean %.1f us (sd %.1f) RTDroid vs %.1f us (sd %.1f)"
                + " RTSJ-style: %.2fx; rtsj: 14 SCHED_FIFO threads at the manifest's priorities, global buffers behind"
                + " monitors, the same Aircraft, FlyByWire and Autopilot; rtdroid: the infrared frames through FIFOs as"
                + " the sensor path's input devices", rt.meanMicros(), rt.sdMicros(), rtsj.meanMicros(), rtsj.sdMicros(),
                rt.meanMicros() / rtsj.meanMicros()));
    }

    private static void row(Report report, String impl, String app, String task, TaskDurations d, Map<String, Object> more) {
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("app", app);
        cases.put("task", task);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("mean_us", d.meanMicros());
        extra.put("sd_us", d.sdMicros());
        extra.put("deadline_misses", d.deadlineMisses());
        extra.putAll(more);
        report.row(impl, cases, d.duration.histogram(), extra, d.samples);
    }
}
