package org.rtdroid.bench;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.rtdroid.examples.spark.AdaptationTable;
import org.rtdroid.examples.spark.FrameAnalysis;
import org.rtdroid.examples.spark.FrameLog;
import org.rtdroid.examples.spark.SparkPipeline;
import org.rtdroid.examples.spark.Y4mVideo;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.reflection.ExecutionEngine;
import org.rtdroid.runtime.reflection.RealTimeLine;
import org.rtdroid.video.SparkScene;
import org.rtdroid.video.Y4mWriter;

/**
 * Temporal reflection's accuracy, the seed's Figures 4 and 5 (seed 004, section 5.4-5.5): the spark
 * detection plan (read, parse, analyse at the adaptation table's quality, display) on a reflective
 * engine at 25 frames a second, the display action's start error (actual − planned) per frame,
 * uncalibrated for the first 25 frames and with Listing 6's feedback calibration from frame 25, as
 * in the seed; the adaptation table after 50 frames (Table 1); the engine's own time per action.
 * Baseline in the same run: the same cycle as a plain periodic task (clock_nanosleep to each
 * display instant, display, then read, parse and analyse at full quality), whose display error is
 * its release's wake-up latency.
 */
final class ReflectionBench implements Benchmark {
    static final long FRAME_NANOS = 40_000_000L;
    static final int CALIBRATE_FROM = 25;
    static final int TABLE_AT = 50;
    static final int PRIORITY = 80;

    @Override
    public String name() { return "reflection"; }

    @Override
    public String description() {
        return "temporal reflection: display start error per frame, uncalibrated and calibrated (seed 004, Figures 4-5)";
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        Path video = Files.createTempFile("rtdroid-bench-sparks-", ".y4m");
        try {
            try (OutputStream out = Files.newOutputStream(video)) {
                Y4mWriter.write(out, SparkScene.FRAMES);
            }
            int frames = (int) Math.max(2 * TABLE_AT + 10, o.nanosPerCase() / FRAME_NANOS);
            RealtimePolicy policy = new RealtimePolicy(PRIORITY, o.cpuSet(), 1);
            reflective(video, frames, policy, report);
            periodic(video, frames, policy, report);
        } finally {
            Files.deleteIfExists(video);
        }
    }

    private void reflective(Path video, int frames, RealtimePolicy policy, Report report) throws Exception {
        RealTimeLine tl = new RealTimeLine("spark", 8, 4096, 0);
        ExecutionEngine[] engine = {null};
        long[][] table = new long[AdaptationTable.ROWS][];
        FrameLog log = new FrameLog(Math.max(4096, frames + 16));
        SparkPipeline p = SparkPipeline.open(video, FRAME_NANOS, 100_000_000L, CALIBRATE_FROM, () -> engine[0], f -> {
            if (f.frame() == TABLE_AT) {  // Table 1: the table as it stands when frame 50 is displayed
                for (int r = 0; r < AdaptationTable.ROWS; r++) {
                    table[r] = new long[] {f.table().frameOf(r), f.table().longestNanos(r), f.table().observed(r) ? 1 : 0};
                }
            }
        }, log);
        engine[0] = new ExecutionEngine(tl, p);
        engine[0].start("reflection-engine", ExecutionEngine.applying(policy));
        Throwable failed = engine[0].awaitStarted(10_000);
        if (failed != null) {
            throw new IllegalStateException("engine did not start", failed);
        }
        System.out.printf("  reflective: %d frames at 25 fps (%.0f s)%n", frames, frames * FRAME_NANOS / 1e9);
        p.start(tl, tl.now() + 10_000_000L);
        long deadline = System.nanoTime() + (frames + 50) * FRAME_NANOS + 30_000_000_000L;
        while (log.frames() < frames && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        engine[0].stop();
        engine[0].join(5_000);
        p.close();
        int n = (int) Math.min(frames, log.frames());
        List<Map<String, Object>> series = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("frame", k);
            s.put("error_us", log.displayErrorNanos(k) / 1000.0);
            int row = log.row(k);
            s.put("dx", row < 0 ? 0 : AdaptationTable.dx(row));
            s.put("dy", row < 0 ? 0 : AdaptationTable.dy(row));
            s.put("clobbered", log.clobbered(k));
            s.put("calibrated", log.calibrated(k));
            s.put("anticipation_us", log.anticipationNanos(k) / 1000.0);
            series.add(s);
        }
        // The engine's own time per action, per phase: the first 25 frames' actions (read, parse,
        // analyse, display: 4 each) include the cold start (interpreted code), the rest is steady state.
        long held = log.overheadsHeld();
        long firstHeld = log.actions() - held;
        long split = Math.max(firstHeld, Math.min(log.actions(), 4L * CALIBRATE_FROM));
        long overheadUncal = p99(log, firstHeld, split);
        long overheadP99 = p99(log, split, log.actions());
        Report.Row un = phase(report, "reflective", "uncalibrated", log, 0, Math.min(CALIBRATE_FROM, n), overheadUncal);
        Report.Row cal = phase(report, "reflective", "calibrated", log, Math.min(CALIBRATE_FROM, n), n, overheadP99);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int r = 0; r < AdaptationTable.ROWS; r++) {
            Map<String, Object> m = new LinkedHashMap<>();
            long[] t = table[r];
            m.put("frame", t == null ? 0 : t[0]);
            m.put("analysis_length_us", t == null || t[2] == 0 ? null : t[1] / 1000.0);
            m.put("dx", AdaptationTable.dx(r));
            m.put("dy", AdaptationTable.dy(r));
            m.put("quality", "1/" + AdaptationTable.dx(r) * AdaptationTable.dy(r));
            rows.add(m);
        }
        report.section("adaptation_table_after_50_frames", rows);
        report.section("frames", series);
        double p99 = (double) cal.extra().get("error_p99_us");
        report.goal("calibrated |display start error| p99 <= 5 us", String.format("%.2f us", p99), p99 <= 5.0);
        long misses = (long) cal.extra().get("display_misses_after_table_filled")
                + (long) un.extra().get("display_misses_after_table_filled");
        report.goal("no display miss once the table knows the quality it chose", misses + " misses", misses == 0);
        report.goal("engine overhead per action p99 <= 10 us (steady state: frames 25 on)", String.format("%.2f us", overheadP99 / 1000.0),
                overheadP99 <= 10_000);
    }

    /** The 99th percentile of the engine's own time over actions [from, to). */
    private static long p99(FrameLog log, long from, long to) {
        if (to <= from) {
            return 0;
        }
        long[] v = new long[(int) (to - from)];
        for (int i = 0; i < v.length; i++) {
            v[i] = log.overheadNanos(from + i);
        }
        Arrays.sort(v);
        return v[Math.min(v.length - 1, (int) Math.ceil(0.99 * v.length) - 1)];
    }

    /** One phase's row: |display start error| percentiles, signed p50, clobbered, misses, overhead. */
    private static Report.Row phase(Report report, String impl, String phase, FrameLog log, int from, int to,
                                    long overheadP99) {
        Histogram h = new Histogram(3);
        long[] signed = new long[Math.max(0, to - from)];
        long clobbered = 0;
        long misses = 0;
        for (int k = from; k < to; k++) {
            long e = log.displayErrorNanos(k);
            signed[k - from] = e;
            h.recordValue(Math.abs(e));
            clobbered += log.clobbered(k) ? 1 : 0;
            // The display missed: it started after its 1 ms window, or the analysis's late end delayed it.
            if (log.rowKnown(k) && (log.clobbered(k) || e > 1_000_000L)) {
                misses++;
            }
        }
        Arrays.sort(signed);
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("phase", phase);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("frames", to - from);
        extra.put("error_p50_us", signed.length == 0 ? 0.0 : signed[signed.length / 2] / 1000.0);
        extra.put("error_p99_us", h.getTotalCount() == 0 ? 0.0 : h.getValueAtPercentile(99) / 1000.0);
        extra.put("error_max_us", h.getTotalCount() == 0 ? 0.0 : h.getMaxValue() / 1000.0);
        extra.put("clobbered", clobbered);
        extra.put("display_misses_after_table_filled", misses);
        extra.put("engine_overhead_p99_us", overheadP99 / 1000.0);
        return report.row(impl, cases, h, extra);
    }

    /** The baseline: one periodic thread, display at each instant, then read, parse, analyse at (1,1). */
    private void periodic(Path video, int frames, RealtimePolicy policy, Report report) throws Exception {
        long[] errors = new long[frames];
        int[] done = {0};
        Throwable[] failure = {null};
        Thread t = RealtimeThreads.start("reflection-baseline", policy, () -> {
            try (Y4mVideo v = Y4mVideo.open(video)) {
                int[] rgb = new int[v.width() * v.height()];
                int[] box = new int[4];
                long first = System.nanoTime() + 110_000_000L;
                v.read(0);
                v.parse(rgb);
                for (int k = 0; k < frames; k++) {
                    long instant = first + k * FRAME_NANOS;
                    Linux.sleepUntilNanos(instant);
                    errors[k] = System.nanoTime() - instant;  // the display, at its release
                    v.read(k + 1);
                    v.parse(rgb);
                    FrameAnalysis.scan(rgb, v.width(), v.height(), 1, 1, box);
                    done[0] = k + 1;
                }
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        System.out.printf("  periodic baseline: %d frames at 25 fps%n", frames);
        t.join();
        if (failure[0] != null) {
            throw new IllegalStateException("baseline failed", failure[0]);
        }
        Histogram h = new Histogram(3);
        long[] signed = Arrays.copyOf(errors, done[0]);
        for (long e : signed) {
            h.recordValue(Math.abs(e));
        }
        Arrays.sort(signed);
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("phase", "fixed quality 1x1");
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("frames", done[0]);
        extra.put("error_p50_us", signed.length == 0 ? 0.0 : signed[signed.length / 2] / 1000.0);
        extra.put("error_p99_us", h.getValueAtPercentile(99) / 1000.0);
        extra.put("error_max_us", h.getMaxValue() / 1000.0);
        extra.put("clobbered", 0L);
        extra.put("display_misses_after_table_filled", 0L);
        extra.put("engine_overhead_p99_us", 0.0);
        report.row("periodic", cases, h, extra);
    }
}
