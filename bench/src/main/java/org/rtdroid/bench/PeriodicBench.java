package org.rtdroid.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.rtdroid.runtime.os.AppliedPolicy;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * Release lateness of a 1 ms periodic task (wake-up time minus scheduled release time), for the
 * RTDroid real-time thread in this JVM and for {@code cyclictest} (rt-tests) on the same CPU at the
 * same priority, run one after the other in the same process run: idle, then with a garbage-heavy
 * SCHED_OTHER thread allocating in this JVM (so the GC works while both are measured).
 */
final class PeriodicBench implements Benchmark {
    static final long PERIOD_NANOS = 1_000_000L;
    static final int PRIORITY = 80;
    static final int WARMUP_RELEASES = 500;
    static final int JIT_WARMUP_CALLS = 50_000;
    static final long SLICE_RELEASES = 1000;
    /** cyclictest histogram range in microseconds; slower samples count as overflows. */
    static final int CYCLICTEST_HIST_US = 10_000;

    @Override
    public String name() {
        return "periodic";
    }

    @Override
    public String description() {
        return "1 ms periodic release lateness: rtdroid RT thread vs cyclictest, idle and with GC noise";
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        long releases = Math.max(100, o.nanosPerCase() / PERIOD_NANOS);
        // Alternate the participants in slices so all face the same (time-varying) machine noise.
        int slices = (int) Math.max(1, releases / SLICE_RELEASES);
        long perSlice = releases / slices;
        Path work = Files.createDirectories(o.out().resolve("periodic-work"));
        boolean cyclictestOk = true;
        PeriodicTaskProbe probe = PeriodicTaskProbe.start(o.cpu(), PERIOD_NANOS);
        // JIT warm-up of the runtime's release loop and onRelease: a 20 us period, not recorded.
        probe.run(PRIORITY, "20us", o.quick() ? JIT_WARMUP_CALLS / 3 : JIT_WARMUP_CALLS, 0, new Latency());
        try {
            for (String noise : List.of("none", "gc")) {
                GarbageNoise gc = "gc".equals(noise) ? GarbageNoise.start() : null;
                Latency task = new Latency();
                Latency rt = new Latency();
                Latency ct = new Latency();
                missedReleases = 0;
                long taskMissed = 0;
                long[] overflows = new long[1];
                String[] thread = new String[1];
                List<String> cmd = null;
                try {
                    if (gc != null) {
                        Thread.sleep(300); // let the collector get going
                    }
                    for (int s = 0; s < slices; s++) {
                        taskMissed += probe.run(PRIORITY, null, WARMUP_RELEASES, perSlice, task);
                        thread[0] = runRtdroidSlice(o, perSlice, rt);
                        if (cyclictestOk) {
                            cmd = runCyclictestSlice(o, report, noise, perSlice, work, ct, overflows);
                            cyclictestOk = cmd != null;
                        }
                    }
                } finally {
                    if (gc != null) {
                        long bytes = gc.stop();
                        report.note("noise=gc: a SCHED_OTHER thread allocated " + (bytes >> 20) + " MiB of garbage during the runs (target "
                                + GarbageNoise.MIB_PER_SECOND + " MiB/s)");
                    }
                }
                Map<String, Object> taskExtra = new LinkedHashMap<>();
                taskExtra.put("what", "PeriodicTask deployed from a manifest (RuntimeHost, CPU " + o.cpu() + ")");
                taskExtra.put("missed_releases", taskMissed);
                taskExtra.put("slices", slices);
                Report.Row rtRow = report.row("rtdroid", cases(noise), task.histogram(), taskExtra);
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("what", "bare loop on org.rtdroid.runtime.os");
                extra.put("thread", thread[0]);
                extra.put("missed_releases", missedReleases);
                extra.put("slices", slices);
                report.row("rtdroid-os", cases(noise), rt.histogram(), extra);
                if (cyclictestOk) {
                    Map<String, Object> ctExtra = new LinkedHashMap<>();
                    ctExtra.put("command", String.join(" ", cmd));
                    ctExtra.put("overflows", overflows[0]);
                    ctExtra.put("slices", slices);
                    Report.Row ctRow = report.row("cyclictest", cases(noise), ct.histogram(), ctExtra);
                    double ratio = rtRow.p99Micros() / ctRow.p99Micros();
                    report.goal("noise=" + noise + ": rtdroid p99 within 1.5x cyclictest's p99",
                            String.format("rtdroid p99 %.1f us vs cyclictest %.1f us (%.2fx)", rtRow.p99Micros(), ctRow.p99Micros(), ratio),
                            ratio <= 1.5);
                }
            }
        } finally {
            probe.shutdown();
        }
        report.note("rtdroid = a PeriodicTask (SCHED_FIFO " + PRIORITY + ", 1 ms) deployed from a manifest into a RuntimeHost pinned"
                + " to CPU " + o.cpu() + ", lateness measured in onRelease(); rtdroid-os = a bare loop on org.rtdroid.runtime.os"
                + " (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), same priority and CPU, 1 ns timer slack); cyclictest -m -p"
                + PRIORITY + " -i1000 -a " + o.cpu() + " (µs-resolution histogram, bucket midpoints). The three alternate in slices"
                + " of " + perSlice + " releases; a release due before the previous wake-up (catch-up after a stall) is counted"
                + " in missed_releases, not sampled, as cyclictest does");
    }

    private static volatile boolean jitWarm;

    /** @return the applied thread policy, for the report */
    private String runRtdroidSlice(BenchOptions o, long releases, Latency lateness) throws InterruptedException {
        AppliedPolicy[] applied = new AppliedPolicy[1];
        Thread t = RealtimeThreads.start("bench-periodic", RealtimePolicy.fifo(PRIORITY).withCpus(o.cpuSet()),
                a -> applied[0] = a, () -> {
                    Latency scratch = new Latency();
                    if (!jitWarm) {
                        // At 1 kHz the loop would stay interpreted for tens of seconds, so compile
                        // release() first with deadlines already past (no sleeping). Every such call
                        // counts as a catch-up: not a missed release of the measurement.
                        long missedBefore = missedReleases;
                        for (int i = 0; i < JIT_WARMUP_CALLS; i++) {
                            release(Linux.monotonicNanos() - PERIOD_NANOS, scratch);
                        }
                        missedReleases = missedBefore;
                        jitWarm = true;
                    }
                    long next = Linux.monotonicNanos() + PERIOD_NANOS;
                    long missedBefore = missedReleases;
                    for (long i = 0; i < WARMUP_RELEASES; i++) {
                        next = release(next, scratch);
                    }
                    missedReleases = missedBefore; // only measured releases count, as in the probe
                    for (long i = 0; i < releases; i++) {
                        next = release(next, lateness);
                    }
                });
        t.join();
        return applied[0].toString();
    }

    /**
     * One release: sleep to the absolute release time, record how late the wake-up was, and return
     * the next release time. Like cyclictest, releases missed during a stall are skipped (and
     * counted), so one stall is one sample in both participants.
     */
    private static long release(long releaseNanos, Latency lateness) {
        Linux.sleepUntilNanos(releaseNanos);
        long now = Linux.monotonicNanos();
        lateness.recordNanos(now - releaseNanos);
        long next = releaseNanos + PERIOD_NANOS;
        while (next - now < 0) {
            next += PERIOD_NANOS;
            missedReleases++;
        }
        return next;
    }

    /** Releases skipped after stalls (written by the one measuring thread, read after join). */
    private static long missedReleases;

    /** @return the command, or null if cyclictest could not run (noted in the report) */
    private List<String> runCyclictestSlice(BenchOptions o, Report report, String noise, long releases, Path work,
            Latency into, long[] overflows) throws IOException, InterruptedException {
        Path hist = work.resolve("cyclictest-" + noise + ".hist");
        Path log = work.resolve("cyclictest-" + noise + ".log");
        Files.deleteIfExists(hist);
        List<String> cmd = List.of("cyclictest", "-m", "-p" + PRIORITY, "-i1000", "-l", Long.toString(releases),
                "-a", Integer.toString(o.cpu()), "-t1", "-q", "-h", Integer.toString(CYCLICTEST_HIST_US),
                "--histfile=" + hist);
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            report.note("cyclictest not run (" + e.getMessage() + "); install rt-tests");
            return null;
        }
        long timeoutSeconds = releases / 1000 + 60;
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            report.note("cyclictest did not finish within " + timeoutSeconds + " s");
            return null;
        }
        if (p.exitValue() != 0 || !Files.exists(hist)) {
            report.note("cyclictest exited " + p.exitValue() + " (see " + log + ")");
            return null;
        }
        overflows[0] += parseHistogram(hist, into);
        return cmd;
    }

    /**
     * Reads cyclictest's histogram file: "USEC COUNT" lines, then "# Max Latencies: N" and
     * "# Histogram Overflows: N". A sample in bucket b lies in [b, b+1) µs: recorded at b + 0.5 µs.
     * Overflows (beyond the range) are recorded at the reported maximum.
     *
     * @return the number of overflows
     */
    static long parseHistogram(Path file, Latency into) throws IOException {
        long max = -1;
        long overflows = 0;
        for (String line : Files.readAllLines(file)) {
            String l = line.trim();
            if (l.isEmpty()) {
                continue;
            }
            if (l.startsWith("#")) {
                if (l.startsWith("# Max Latencies:")) {
                    max = Long.parseLong(l.substring("# Max Latencies:".length()).trim().split("\\s+")[0]);
                } else if (l.startsWith("# Histogram Overflows:")) {
                    overflows = Long.parseLong(l.substring("# Histogram Overflows:".length()).trim().split("\\s+")[0]);
                }
                continue;
            }
            String[] f = l.split("\\s+");
            if (f.length < 2) {
                throw new IOException(file + ": histogram line \"" + line + "\" has no count");
            }
            long us = Long.parseLong(f[0]);
            long count = Long.parseLong(f[1]);
            if (count > 0) {
                into.recordNanos(us * 1000 + 500, count);
            }
        }
        if (overflows > 0) {
            into.recordNanos(Math.max(max, CYCLICTEST_HIST_US) * 1000L, overflows);
        }
        return overflows;
    }

    private static Map<String, Object> cases(String noise) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("noise", noise);
        return c;
    }

    /**
     * A SCHED_OTHER thread that allocates {@value #MIB_PER_SECOND} MiB/s of garbage (objects of
     * 64 B..16 KiB, a churning live set of up to ~128 MiB so some survive into the old generation).
     * A fixed rate, not "as fast as possible", so runs on different machines face the same load.
     */
    static final class GarbageNoise {
        static final int MIB_PER_SECOND = 512;
        static final double NANOS_PER_BYTE = 1e9 / ((double) MIB_PER_SECOND * (1 << 20));
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long allocatedBytes;

        private GarbageNoise() {
            thread = Thread.ofPlatform().name("bench-garbage").daemon(true).unstarted(this::run);
        }

        static GarbageNoise start() {
            GarbageNoise g = new GarbageNoise();
            g.thread.start();
            return g;
        }

        private void run() {
            Object[] live = new Object[16_384]; // up to ~128 MiB live, replaced at random: old-gen churn
            long x = 0x9E3779B97F4A7C15L;
            long bytes = 0;
            long startNanos = System.nanoTime();
            while (running) {
                if ((bytes & 0xFFFFF) < 64 * 1024) { // about every MiB: keep to the rate
                    // In double: bytes * 1e9 overflows a long after 8.6 GiB (17 s at this rate), after
                    // which the thread used to allocate flat out for the rest of the run.
                    long dueNanos = startNanos + (long) (bytes * NANOS_PER_BYTE);
                    long ahead = dueNanos - System.nanoTime();
                    if (ahead > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(ahead);
                    }
                }
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                int size = 64 + (int) ((x >>> 40) & 0x3FFF);
                live[(int) (x & (live.length - 1))] = new byte[size];
                bytes += size;
                if ((bytes & 0xFFFFF) < size) {
                    allocatedBytes = bytes;
                }
            }
            allocatedBytes = bytes;
        }

        long stop() throws InterruptedException {
            running = false;
            thread.join();
            return allocatedBytes;
        }
    }
}
