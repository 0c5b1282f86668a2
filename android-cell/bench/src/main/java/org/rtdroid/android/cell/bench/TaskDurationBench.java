package org.rtdroid.android.cell.bench;

import org.rtdroid.android.cell.CellContextImplShadow;
import org.rtdroid.android.cell.CellLogShadow;
import org.rtdroid.android.cell.ClockPump;
import org.rtdroid.android.cell.Main;
import org.rtdroid.logic.cochlear.SignalPath;
import org.rtdroid.logic.cochlear.SpeechSource;
import org.rtdroid.logic.papabench.Flight;
import org.rtdroid.logic.papabench.Task;

import android.os.Handler;
import android.os.Looper;
import android.os.SystemClock;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;

/**
 * Table 4.2's "Android" column (4.5.2): the example apps' logic ({@code rtdroid-app-logic}, the same
 * the RTDroid and RTSJ-style versions run) as an Android app runs it, on the Android cell's main
 * looper: each task a {@link Handler} message posted for its next release with
 * {@code postAtTime} (uptime milliseconds, the framework's timer), in the cell's framework sandbox,
 * whose frozen SystemClock is advanced every millisecond by the real time that passed, as the
 * cell's host does. App {@code cochlear}: recording every 8 ms (a block of the speech source into
 * the app's buffer), processing 4 ms later (the newest block through the {@link SignalPath}, its
 * levels handed to the output check by a message to the same looper), the output check. App
 * {@code papabench}: jPapaBench's 14 tasks ({@link Task}: periods and start offsets) as messages of
 * the same looper, each a release of {@link Flight} (the modules' logic, links as variables); the
 * Stabilization task (50 ms) is measured. The measured release's duration (its message's begin to
 * end) and whether it ended later than its planned release plus its period are kept per release, as
 * the bench's {@code tasks} benchmark keeps
 * them for RTDroid and RTSJ. Writes &lt;out&gt;/tasks-android.json in the bench's format and the
 * raw releases under &lt;out&gt;/tasks-android.samples/run1/ ({@code release_ns,start_ns,duration_ns}).
 *
 * <pre>android-cell/bench/run.sh tasks [--quick|--full] [--out DIR]</pre>
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class TaskDurationBench {
    static final long COCHLEAR_PERIOD_MS = 8;
    static final int WARMUP_RELEASES = 125;
    static final int WARMUP_RELEASES_QUICK = 40;
    static final int WARMUP_BLOCKS = 400;
    private static final String PROP_FORM = "org.rtdroid.bench.tasks.form";
    private static final String PROP_OUT = "org.rtdroid.bench.tasks.out";
    private final String form = System.getProperty(PROP_FORM, "default");
    private final Path out = Path.of(System.getProperty(PROP_OUT, "build/bench"));

    /** One measured task's releases (what the bench's TaskDurations keeps). */
    static final class Releases {
        final long[] release;
        final long[] start;
        final long[] duration;
        final long deadlineNanos;
        final int warmup;
        int count;
        int seen;
        long misses;

        Releases(int n, long deadlineNanos, int warmup) {
            this.warmup = warmup;
            release = new long[n];
            start = new long[n];
            duration = new long[n];
            this.deadlineNanos = deadlineNanos;
        }

        /** @return false once full */
        boolean record(long releaseNanos, long beginNanos, long endNanos) {
            if (seen++ < warmup) {
                return true;
            }
            if (count == release.length) {
                return false;
            }
            release[count] = releaseNanos;
            start[count] = beginNanos - releaseNanos;
            duration[count] = endNanos - beginNanos;
            if (endNanos - releaseNanos > deadlineNanos) {
                misses++;
            }
            count++;
            return count < release.length;
        }
    }

    @Test
    public void measure() throws Exception {
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        int releases = form.equals("quick") ? 60 : form.equals("full") ? 40_000 : 5_000;
        Releases cochlear;
        Releases papabench;
        // the sandbox's SystemClock advanced every millisecond by the real time that passed, as the cell's host does
        try (ClockPump clock = ClockPump.start("clock-pump")) {
            cochlear = cochlear(releases);
            papabench = papabench(form.equals("quick") ? 12 : form.equals("full") ? 91_840 : 1_000);
        }
        Path samples = BenchResult.samplesDirectory(out, "tasks-android");
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add(row("cochlear", "processing", cochlear, samples.resolve("001_android_cochlear_processing.csv")));
        rows.add(row("papabench", "stabilization", papabench, samples.resolve("002_android_papabench_stabilization.csv")));
        write(started, rows);
    }

    /** The cochlear implant's releases left out at the start (the JIT's warm-up): fewer in the quick form. */
    private int cochlearWarmup() {
        return form.equals("quick") ? WARMUP_RELEASES_QUICK : WARMUP_RELEASES;
    }

    /** The cochlear implant on the main looper; returns the processing task's releases. */
    private Releases cochlear(int n) throws InterruptedException {
        Handler main = new Handler(Looper.getMainLooper());
        SignalPath signal = new SignalPath(new SignalPath.ArrayState());
        signal.warmUp(WARMUP_BLOCKS);
        Releases into = new Releases(n, COCHLEAR_PERIOD_MS * 1_000_000L, cochlearWarmup());
        CountDownLatch done = new CountDownLatch(1);
        float[] block = new float[SignalPath.SAMPLES_PER_BLOCK];
        float[] x = new float[SignalPath.SAMPLES_PER_BLOCK];
        long[] counters = new long[3]; // blocks recorded, blocks taken, output violations
        SpeechSource microphone = new SpeechSource(SignalPath.SAMPLE_RATE_HZ, 0.01);
        // the uptime (ms) and nanoTime of the same instant, to state each planned release in nanoseconds
        long u0 = SystemClock.uptimeMillis() + 20;
        long n0 = System.nanoTime() + (u0 - SystemClock.uptimeMillis()) * 1_000_000L;
        Runnable check = () -> {
            if (!SignalPath.sane(signal.inputDbfs(), signal.outputDbfs(), signal.peak(), signal.levels())) {
                counters[2]++;
            }
        };
        Runnable recording = new Runnable() {
            long k;

            @Override
            public void run() {
                microphone.next(block, block.length);
                counters[0]++;
                if (done.getCount() > 0) {
                    main.postAtTime(this, u0 + ++k * COCHLEAR_PERIOD_MS);
                }
            }
        };
        Runnable processing = new Runnable() {
            long k;

            @Override
            public void run() {
                long planned = u0 + COCHLEAR_PERIOD_MS / 2 + k * COCHLEAR_PERIOD_MS;
                long begin = System.nanoTime();
                if (counters[1] < counters[0]) {
                    System.arraycopy(block, 0, x, 0, x.length);
                    counters[1] = counters[0];
                    signal.process(x, 1.0, false, false);
                    main.post(check);
                }
                long end = System.nanoTime();
                if (!into.record(n0 + (planned - u0) * 1_000_000L, begin, end)) {
                    done.countDown();
                    return;
                }
                // the next release in the future: an overrun skips the periods it ran into
                long now = SystemClock.uptimeMillis();
                do {
                    k++;
                } while (u0 + COCHLEAR_PERIOD_MS / 2 + k * COCHLEAR_PERIOD_MS < now - COCHLEAR_PERIOD_MS);
                main.postAtTime(this, u0 + COCHLEAR_PERIOD_MS / 2 + k * COCHLEAR_PERIOD_MS);
            }
        };
        main.postAtTime(recording, u0);
        main.postAtTime(processing, u0 + COCHLEAR_PERIOD_MS / 2);
        long bound = (n + cochlearWarmup()) * COCHLEAR_PERIOD_MS * 3 + 60_000;
        if (!done.await(bound, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("cochlear: " + into.count + " of " + n + " releases in " + bound + " ms");
        }
        System.out.println("TaskDurationBench: cochlear: output violations " + counters[2]);
        return into;
    }

    /** jPapaBench's 14 tasks on the main looper; returns the Stabilization task's releases. */
    private Releases papabench(int n) throws InterruptedException {
        Handler main = new Handler(Looper.getMainLooper());
        Flight flight = new Flight();
        int warmup = form.equals("quick") ? 3 : 20;
        Releases into = new Releases(n, Task.STABILIZATION.periodMillis * 1_000_000L, warmup);
        CountDownLatch done = new CountDownLatch(1);
        long u0 = SystemClock.uptimeMillis() + 20;
        long n0 = System.nanoTime() + (u0 - SystemClock.uptimeMillis()) * 1_000_000L;
        PapabenchLoop.post(main, u0, (task, planned) -> {
            if (done.getCount() == 0) {
                return false;
            }
            long begin = System.nanoTime();
            flight.run(task);
            long end = System.nanoTime();
            if (task == Task.STABILIZATION && !into.record(n0 + (planned - u0) * 1_000_000L, begin, end)) {
                done.countDown();
                return false;
            }
            return true;
        });
        long bound = (n + warmup) * Task.STABILIZATION.periodMillis * 3L + 60_000;
        if (!done.await(bound, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("papabench: " + into.count + " of " + n + " releases in " + bound + " ms");
        }
        System.out.println("TaskDurationBench: papabench: GPS fixes " + flight.ap.fixes());
        return into;
    }

    private Map<String, Object> row(String app, String task, Releases r, Path csv) throws IOException {
        Histogram h = BenchResult.histogram();
        double sum = 0;
        double squares = 0;
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("release_ns,start_ns,duration_ns\n");
            for (int i = 0; i < r.count; i++) {
                long d = r.duration[i];
                h.recordValue(Math.max(0, d));
                sum += d;
                squares += (double) d * d;
                w.write((r.release[i] - r.release[0]) + "," + r.start[i] + "," + d + "\n");
            }
        }
        double mean = r.count == 0 ? Double.NaN : sum / r.count;
        double sd = r.count < 2 ? 0 : Math.sqrt(Math.max(0, (squares - r.count * mean * mean) / (r.count - 1)));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("impl", "android");
        m.put("app", app);
        m.put("task", task);
        m.put("count", (long) r.count);
        BenchResult.putPercentiles(m, h);
        m.put("mean_us", Math.round(mean / 10.0) / 100.0);
        m.put("sd_us", Math.round(sd / 10.0) / 100.0);
        m.put("deadline_misses", r.misses);
        m.put("run", 1);
        m.put("samples", out.relativize(csv).toString());
        System.out.printf(Locale.ROOT, "  android %-9s %-11s count %6d  mean %8.1f us  sd %8.1f us  max %9.1f us  deadline misses %d%n",
                app, task, r.count, mean / 1e3, sd / 1e3, h.getMaxValue() / 1e3, r.misses);
        return m;
    }

    private void write(Instant started, List<Map<String, Object>> rows) throws IOException {
        Map<String, Object> root = BenchResult.root("tasks-android", started,
                System.getProperty("org.rtdroid.bench.tasks.command", "TaskDurationBench"), List.of("app", "task"), false);
        BenchResult.write(out, "tasks-android.json", root, rows, "each task a Handler message on the main looper (SCHED_OTHER),"
                + " posted with postAtTime for its next release (uptime ms, the clock advanced every ms as the cell's host advances it);"
                + " duration = the message's begin to end; deadline missed = ended after the planned release + the period; the first "
                + cochlearWarmup() + " releases left out", "TaskDurationBench");
    }
}
