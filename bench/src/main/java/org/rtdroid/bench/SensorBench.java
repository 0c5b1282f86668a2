package org.rtdroid.bench;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import org.rtdroid.logic.papabench.MemoryNoise;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PosixIo;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.sensor.InputDeviceLocator;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorEventListener;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;
import org.rtdroid.runtime.sensor.sim.UinputDevice;

/**
 * The dissertation's Fig. 3.16-3.18 experiment (3.8.3.1, fall detection): latency from the write of
 * an accelerometer frame (its SYN_REPORT) into the input device to the start of a high-priority
 * listener's {@code onSensorChanged}, unloaded and under low-priority noise of three kinds, 5 and
 * 30 of each (with {@code --full}: 1, 5, 30 and 100, the seed's 1 and 100 of Fig. 3.16 and 30 of
 * Fig. 3.17): {@code memory} (the dissertation's: every 200 ms a 2.5 MB array of Integer objects,
 * every other one dropped: GC and fragmentation), {@code computation} (the dissertation's: "a tight
 * loop performing floating point multiplication for 1,000 iterations" every 20 ms) and
 * {@code listeners} (extra listeners of the same sensor, 20 µs of work per event each, at
 * priorities 10..39); and, reported beside them, {@code computation-spin} (threads spinning on
 * arithmetic without pause, the harder variant) and {@code allocation-flood} (allocating 64 KiB
 * arrays without pause, faster than the collector keeps up on one CPU). Every frame's latency is
 * kept as a raw sample; {@code --runs 10} gives Fig. 3.18's worst case over 10 runs.
 *
 * <p>Participants: {@code rtdroid} ({@link SensorService}: polling thread SCHED_FIFO
 * {@value #POLL_PRIORITY}, the accelerometer's processing thread inheriting the listener's
 * {@value #HIGH_PRIORITY}, the listener's lane bound at {@value #HIGH_PRIORITY}) and {@code fifo}
 * (Android-style: one thread at normal priority reads the device and calls every listener in
 * registration order; the extra listeners registered first). Noise threads run SCHED_OTHER. The
 * writer (SCHED_FIFO {@value #WRITER_PRIORITY}) writes a frame every {@value #PERIOD_MILLIS} ms;
 * every thread is pinned to the bench CPU.
 *
 * <p>{@code source}: {@code uinput} where /dev/uinput exists (the kernel's input core between
 * writer and reader), else {@code fifo}: the same {@code struct input_event} records through a
 * named pipe, which leaves out the input core's and evdev's own cost.
 */
final class SensorBench implements Benchmark {
    static final int PERIOD_MILLIS = 5;
    static final long PERIOD_NANOS = PERIOD_MILLIS * 1_000_000L;
    /** The quick form's case: 50 frames. */
    static final double QUICK_SECONDS = 0.25;
    static final int POLL_PRIORITY = 90;
    static final int WRITER_PRIORITY = 85;
    static final int HIGH_PRIORITY = 80;
    static final int LOW_PRIORITY = 10;
    static final long LISTENER_WORK_NANOS = 20_000L;
    static final int SEQUENCES = 4096;
    static final String[] NOISE = {"memory", "computation", "listeners"};
    /** Noise run and reported beside the goal's kinds, not part of it (see {@link #startNoise}). */
    static final String[] NOISE_REPORTED = {"computation-spin", "allocation-flood"};
    /** The seed's computation noise: 1,000 floating-point multiplications every 20 ms. */
    static final int COMPUTATION_MULTIPLICATIONS = 1_000;
    static final long COMPUTATION_PERIOD_NANOS = 20_000_000L;
    static volatile double computationSink;

    static List<String> allNoise() {
        List<String> all = new ArrayList<>(List.of(NOISE));
        all.addAll(List.of(NOISE_REPORTED));
        return all;
    }

    @Override
    public String name() {
        return "sensor";
    }

    @Override
    public String description() {
        return "Figs. 3.16-3.18: device write to listener callback, unloaded and under low-priority noise";
    }

    /** Where the frames go: a pair of uinput devices, or a pair of FIFOs. */
    static final class Source implements AutoCloseable {
        final String kind;
        final InputEventWriter accel;
        final InputEventWriter gyro;
        final InputDeviceLocator accelLocator;
        final InputDeviceLocator gyroLocator;
        final Path dir;

        private Source(String kind, InputEventWriter accel, InputEventWriter gyro, InputDeviceLocator a,
                       InputDeviceLocator g, Path dir) {
            this.kind = kind;
            this.accel = accel;
            this.gyro = gyro;
            this.accelLocator = a;
            this.gyroLocator = g;
            this.dir = dir;
        }

        static boolean uinputAvailable() {
            return Files.exists(Path.of(UinputDevice.UINPUT));
        }

        /** uinput devices (created now) or FIFOs (created now; the writers open once a reader has). */
        static Source create() throws IOException, InterruptedException {
            if (uinputAvailable()) {
                UinputDevice a = UinputDevice.accelerometer();
                UinputDevice g = UinputDevice.gyroscope();
                return new Source("uinput", a, g, InputDeviceLocator.byName(Sensor.ACCELEROMETER_DEVICE),
                        InputDeviceLocator.byName(Sensor.GYROSCOPE_DEVICE), null);
            }
            Path dir = Files.createTempDirectory("rtdroid-sensor-bench-");
            for (String f : new String[] {"accel", "gyro"}) {
                Process p = new ProcessBuilder("mkfifo", dir.resolve(f).toString()).inheritIO().start();
                if (p.waitFor() != 0) {
                    throw new IOException("mkfifo " + dir.resolve(f) + " failed");
                }
            }
            return new Source("fifo", null, null, InputDeviceLocator.atPath(dir.resolve("accel")),
                    InputDeviceLocator.atPath(dir.resolve("gyro")), dir);
        }

        /** The accelerometer writer (a FIFO's opens here, once its reader has it open). */
        InputEventWriter accelWriter() {
            return accel != null ? accel : opened[0];
        }

        private final InputEventWriter[] opened = new InputEventWriter[2];

        void openFifoWriters() {
            if (accel == null) {
                // only accelerometer frames are measured: the gyroscope FIFO gets no writer
                opened[0] = InputEventWriter.open("accel FIFO", dir.resolve("accel").toString(), InputEvents.ABS_X);
            }
        }

        @Override
        public void close() throws IOException {
            for (InputEventWriter w : new InputEventWriter[] {accel, gyro, opened[0], opened[1]}) {
                if (w != null) {
                    w.close();
                }
            }
            if (dir != null) {
                Files.deleteIfExists(dir.resolve("accel"));
                Files.deleteIfExists(dir.resolve("gyro"));
                Files.deleteIfExists(dir);
            }
        }
    }

    /** The measured listener's side: write times by sequence number, and the histogram. */
    static final class Probe {
        final long[] writeNanos = new long[SEQUENCES];
        /** Whether the frame of each sequence number counts: a warm-up frame that arrives late does not. */
        final boolean[] measured = new boolean[SEQUENCES];
        final Latency latency = new Latency();
        /** t_ns: the frame's write, from the first measured one; latency_ns. */
        final Samples samples;
        long firstWrite = -1;
        volatile long received;

        Probe(int capacity) {
            samples = new Samples(capacity, "t_ns", "latency_ns");
        }

        /** @param seq the frame's sequence number (its raw x value) */
        void received(int seq) {
            long now = Linux.monotonicNanos();
            if (measured[seq % SEQUENCES]) {
                long written = writeNanos[seq % SEQUENCES];
                latency.recordNanos(now - written);
                if (firstWrite < 0) {
                    firstWrite = written;
                }
                samples.add(written - firstWrite, now - written);
            }
            received = received + 1;
        }
    }

    static void work(long nanos) {
        long end = Linux.monotonicNanos() + nanos;
        while (Linux.monotonicNanos() < end) {
            Thread.onSpinWait();
        }
    }

    /** One implementation under test. */
    interface Participant {
        String impl();

        void start(Source source, int extraListeners, Probe probe, IntFunction<RealtimePolicy> policyFor);

        void stop() throws InterruptedException;
    }

    static final class RtdroidParticipant implements Participant {
        private SensorService service;

        @Override public String impl() { return "rtdroid"; }

        @Override
        public void start(Source source, int extra, Probe probe, IntFunction<RealtimePolicy> policyFor) {
            service = new SensorService("bench", extra + 1, 64, HandlerStrategy.BOUND, 0, POLL_PRIORITY, policyFor,
                    source.accelLocator, source.gyroLocator);
            service.start();
            for (int i = 0; i < extra; i++) {
                SensorManager low = service.manager(LOW_PRIORITY + i);
                low.registerListener(e -> work(LISTENER_WORK_NANOS), low.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
            }
            SensorManager high = service.manager(HIGH_PRIORITY);
            SensorEventListener l = e -> probe.received(Math.round(e.values[0] * InputEvents.ACCEL_UNITS_PER_MS2));
            high.registerListener(l, high.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        }

        @Override
        public void stop() throws InterruptedException {
            service.stop();
        }
    }

    /**
     * Android-style dispatch: one thread at normal priority blocks in read(2) on the device,
     * frames the records and calls every listener in registration order.
     */
    static final class FifoParticipant implements Participant {
        private Thread thread;
        private volatile boolean running = true;

        @Override public String impl() { return "fifo"; }

        @Override
        public void start(Source source, int extra, Probe probe, IntFunction<RealtimePolicy> policyFor) {
            Path path = source.accelLocator.locate();
            if (path == null) {
                throw new IllegalStateException("no accelerometer device at " + source.accelLocator.describe());
            }
            thread = RealtimeThreads.start("bench-fifo-sensor", policyFor.apply(0), () -> loop(path, extra, probe));
        }

        private void loop(Path path, int extra, Probe probe) {
            int fd = PosixIo.open(path.toString(), PosixIo.O_RDONLY | PosixIo.O_CLOEXEC);
            if (fd < 0) {
                throw new IllegalStateException("cannot open " + path + ": " + PosixIo.describe(fd));
            }
            MemorySegment buf = Arena.ofAuto().allocate(64L * InputEvents.RECORD_BYTES, 8);
            int x = 0;
            int pending = 0;
            try {
                while (running) {
                    long n = PosixIo.readNoErrno(fd, buf, pending, buf.byteSize() - pending);
                    if (n <= 0) {
                        return;
                    }
                    long total = pending + n;
                    long whole = total - total % InputEvents.RECORD_BYTES;
                    for (long at = 0; at < whole; at += InputEvents.RECORD_BYTES) {
                        int type = Short.toUnsignedInt(buf.get(JAVA_SHORT, at + InputEvents.TYPE_OFFSET));
                        int code = Short.toUnsignedInt(buf.get(JAVA_SHORT, at + InputEvents.CODE_OFFSET));
                        if (type == InputEvents.EV_ABS && code == InputEvents.ABS_X) {
                            x = buf.get(JAVA_INT, at + InputEvents.VALUE_OFFSET);
                        } else if (type == InputEvents.EV_SYN && code == InputEvents.SYN_REPORT) {
                            for (int i = 0; i < extra; i++) { // registered first, called first
                                work(LISTENER_WORK_NANOS);
                            }
                            probe.received(x);
                        }
                    }
                    pending = (int) (total - whole);
                    if (pending > 0) {
                        MemorySegment.copy(buf, whole, buf, 0, pending);
                    }
                }
            } finally {
                PosixIo.close(fd);
            }
        }

        @Override
        public void stop() throws InterruptedException {
            running = false; // the read returns 0 once the writer closes (the case's source)
            thread.join(2_000);
        }
    }

    /**
     * The dissertation's memory workload (3.8.3): each period a thread allocates a 2.5 MB array of
     * references filled with {@code Integer} objects, sets every other entry to null (fragmenting the
     * heap) and drops the array. 2.5 MB of 4-byte compressed references: 655,360 entries.
     */
    static final int MEMORY_ARRAY_ENTRIES = (int) (2.5 * 1024 * 1024 / 4);
    /**
     * 3.8.3 names the memory workload's size, not its period ("periodically", 3.8.3.2); this is the
     * period of the dissertation's other heap noise (4.5.1: 512 KB every 200 ms). One period's work
     * takes the bench CPU a few ms, so 30 threads keep it busy a good part of the time.
     */
    static final long MEMORY_PERIOD_NANOS = 200_000_000L;

    /** The sink that keeps the JIT from proving a noise thread's allocations dead. */
    static volatile Object memorySink;

    /** One period of the memory workload. */
    static void fragmentOnce() {
        Integer[] a = new Integer[MEMORY_ARRAY_ENTRIES];
        for (int j = 0; j < a.length; j++) {
            a[j] = Integer.valueOf(j + 128); // above Integer's cache: a new object each
        }
        for (int j = 0; j < a.length; j += 2) {
            a[j] = null;
        }
        memorySink = a;
        memorySink = null;
    }

    /**
     * Low-priority noise threads of one kind (SCHED_OTHER, pinned to the bench CPU): {@code memory}
     * (the fall detection's workload, periodic, phases spread over the period), {@code memory-bytes}
     * (jPapaBench's, the same with {@link MemoryNoise#fragmentOnce}), {@code allocation-flood}
     * (allocating and touching 64 KiB arrays without pause, faster than any collector on one CPU
     * keeps up: not the dissertation's workload, reported beside it), {@code computation} (the
     * dissertation's: 1,000 multiplications every 20 ms, phases spread over the period) and
     * {@code computation-spin} (spinning on arithmetic without pause, reported beside it).
     */
    static List<Thread> startNoise(String kind, int n, CpuSet cpu, AtomicBoolean stop, LongAdder rounds, LongAdder overruns) {
        List<Thread> threads = new ArrayList<>();
        if (kind.equals("listeners")) {
            return threads; // extra listeners, not threads of their own
        }
        long start = Linux.monotonicNanos();
        for (int i = 0; i < n; i++) {
            long phase = MEMORY_PERIOD_NANOS * i / n;
            long cphase = COMPUTATION_PERIOD_NANOS * i / n;
            Runnable body = switch (kind) {
                case "memory", "memory-bytes" -> () -> {
                    boolean bytes = kind.equals("memory-bytes");
                    for (long next = start + phase; !stop.get(); next += MEMORY_PERIOD_NANOS) {
                        Linux.sleepUntilNanos(next);
                        if (bytes) {
                            MemoryNoise.fragmentOnce();
                        } else {
                            fragmentOnce();
                        }
                        rounds.increment();
                        long now = Linux.monotonicNanos();
                        if (now - next > MEMORY_PERIOD_NANOS) {
                            overruns.increment();
                            next = now - MEMORY_PERIOD_NANOS; // overran: the next period starts now, none is made up
                        }
                    }
                };
                case "allocation-flood" -> () -> {
                    byte[][] keep = new byte[64][];
                    int k = 0;
                    while (!stop.get()) {
                        byte[] b = new byte[64 * 1024];
                        for (int j = 0; j < b.length; j += 64) {
                            b[j] = (byte) j;
                        }
                        keep[k++ & 63] = b;
                    }
                };
                case "computation" -> () -> {
                    for (long next = start + cphase; !stop.get(); next += COMPUTATION_PERIOD_NANOS) {
                        Linux.sleepUntilNanos(next);
                        double v = 1.0 + next % 7;
                        for (int k = 0; k < COMPUTATION_MULTIPLICATIONS; k++) {
                            v *= 1.0000001;
                        }
                        computationSink = v;
                        long now = Linux.monotonicNanos();
                        if (now - next > COMPUTATION_PERIOD_NANOS) {
                            next = now - COMPUTATION_PERIOD_NANOS; // overran: none is made up
                        }
                    }
                };
                case "computation-spin" -> () -> {
                    double v = 1.0;
                    while (!stop.get()) {
                        v = Math.sqrt(v * 1.000001 + 1.0);
                    }
                    if (v == 42) {
                        System.out.print("");
                    }
                };
                default -> throw new IllegalArgumentException("unknown noise kind " + kind);
            };
            threads.add(RealtimeThreads.start("bench-noise-" + kind + "-" + i, new RealtimePolicy(0, cpu, 0), body));
        }
        return threads;
    }

    /** The {@code gc} of a row: the JVM's own threads at nice 0 (as without the RT cell's flags), or lifted. */
    static final String GC_PLAIN = "zgc";
    static final String GC_LIFTED = "zgc-jvm-threads-above-noise";

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        CpuSet cpu = o.cpuSet();
        IntFunction<RealtimePolicy> policyFor = p -> new RealtimePolicy(p, cpu, p == 0 ? 0 : 1);
        int[] counts = o.cases(new int[] {30}, new int[] {5, 30}, new int[] {1, 5, 30, 100});
        Map<String, Report.Row> rows = new LinkedHashMap<>();
        String source = Source.uinputAvailable() ? "uinput" : "fifo";
        // The RT cell's JVM (bench/run.sh) runs its own threads at nice -10; the plain-ZGC cases put
        // them back to nice 0 for their duration: both configurations, case by case, on the same machine.
        JvmThreads jvm = JvmThreads.lifted();
        // The figures' forms (quick, full) run the shipped configuration only; the default runs both.
        List<String> gcs = !jvm.any() ? List.of(GC_PLAIN) : o.quick() || o.full() ? List.of(GC_LIFTED)
                : List.of(GC_PLAIN, GC_LIFTED);
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {"none", "0"});
        for (String kind : allNoise()) {
            for (int n : counts) {
                // the variants beside the seed's kinds: 5 and 30 only; quick: the seed's kinds only
                if (List.of(NOISE).contains(kind) || !o.quick() && (n == 5 || n == 30)) {
                    cases.add(new String[] {kind, Integer.toString(n)});
                }
            }
        }
        // Both participants and both JVM configurations face each case one after the other.
        try {
            for (String[] c : cases) {
                for (String gc : gcs) {
                    jvm.lift(gc.equals(GC_LIFTED));
                    for (String impl : List.of("rtdroid", "fifo")) {
                        int n = Integer.parseInt(c[1]);
                        try (Watchdog.Phase phase = Watchdog.phase("sensor " + impl + " " + c[0] + " " + n,
                                o.secondsPerCase() * 3 + 120)) {
                            rows.put(impl + "/" + gc + "/" + c[0] + "/" + n,
                                    runCase(o, report, impl, gc, jvm.liftedNice(gc.equals(GC_LIFTED)), c[0], n, policyFor, cpu));
                        }
                        System.gc();
                    }
                }
            }
        } finally {
            jvm.lift(true);
        }
        for (String gc : gcs) {
            for (String impl : List.of("rtdroid", "fifo")) {
                Report.Row base = rows.get(impl + "/" + gc + "/none/0");
                for (String kind : allNoise()) {
                    Report.Row r = rows.get(impl + "/" + gc + "/" + kind + "/30");
                    if (r == null) {
                        continue;
                    }
                    double ratio = r.p99Micros() / base.p99Micros();
                    String text = impl + " (gc=" + gc + "): p99 with 30 " + kind + " noise within 1.5x the unloaded p99";
                    String measured = String.format(Locale.ROOT, "%.1f us vs %.1f us (%.2fx)", r.p99Micros(),
                            base.p99Micros(), ratio);
                    boolean goal = List.of(NOISE).contains(kind);
                    if (goal && impl.equals("rtdroid") && gc.equals(gcs.get(gcs.size() - 1))) {
                        report.goal(text, measured, ratio <= 1.5);  // the configuration the RT cell runs
                    } else if (!goal && impl.equals("rtdroid")) {
                        report.note("not a goal (" + kind + " outruns the collector, see startNoise) " + text + ": " + measured);
                    } else {
                        report.note("baseline " + text + ": " + measured);
                    }
                }
            }
        }
        report.note(jvm.any()
                ? "gc=" + GC_LIFTED + ": the RT cell's JVM as every board starts it (render.py RT_GC_ARGS): ZGC, the"
                        + " VM thread and the GC's threads at nice " + jvm.liftedNice(true) + ", above the"
                        + " SCHED_OTHER noise threads (nice 0), below every SCHED_FIFO thread; gc=" + GC_PLAIN
                        + ": the same JVM with those threads set back to nice 0 for the case (setpriority), as without"
                        + " -XX:ThreadPriorityPolicy=1"
                : "gc=" + GC_PLAIN + " only: no thread of this JVM runs below nice 0 (started without the RT cell's"
                        + " -XX:ThreadPriorityPolicy=1 -XX:JavaPriority9_To_OSPriority=-10, or without CAP_SYS_NICE)");
        report.note("source=" + source + ": " + (source.equals("fifo")
                ? "this host has no /dev/uinput; the kernel-format input_event records go through a named pipe (mkfifo),"
                        + " read by the same reader, framing and dispatch code; the kernel's input core and evdev are not in the path"
                : "frames are written into uinput devices and read from /dev/input/eventN through the kernel's input core and evdev"));
        report.note("latency = CLOCK_MONOTONIC just before the write(2) of the frame (3 ABS events + SYN_REPORT) to the start"
                + " of the high listener's onSensorChanged; one frame every " + PERIOD_MILLIS + " ms; all threads on CPU " + o.cpu()
                + "; rtdroid: polling SCHED_FIFO " + POLL_PRIORITY + ", listener and inherited processing priority " + HIGH_PRIORITY
                + ", writer " + WRITER_PRIORITY + "; fifo: one SCHED_OTHER thread reads and dispatches in registration order;"
                + " noise threads SCHED_OTHER; extra listeners work " + LISTENER_WORK_NANOS / 1000 + " us per event at priorities "
                + LOW_PRIORITY + ".." + (LOW_PRIORITY + 29) + " (rtdroid)");
    }

    private Report.Row runCase(BenchOptions o, Report report, String impl, String gc, int jvmNice, String noise, int n,
                               IntFunction<RealtimePolicy> policyFor, CpuSet cpu) throws Exception {
        long frames = Math.max(1, (long) (o.secondsFor(QUICK_SECONDS, o.secondsPerCase()) * 1e9) / PERIOD_NANOS);
        Probe probe = new Probe((int) frames + 16);
        Participant p = impl.equals("rtdroid") ? new RtdroidParticipant() : new FifoParticipant();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> noiseThreads;
        LongAdder memoryRounds = new LongAdder();
        LongAdder memoryOverruns = new LongAdder();
        long warmup = o.quick() ? 20 : 400;
        long[] written = new long[1];
        try (Source source = Source.create()) {
            p.start(source, noise.equals("listeners") ? n : 0, probe, policyFor);
            source.openFifoWriters();
            if (source.kind.equals("uinput")) {
                Thread.sleep(300); // the rtdroid reader looks for new devices every 100 ms
            }
            noiseThreads = startNoise(noise, n, cpu, stop, memoryRounds, memoryOverruns);
            InputEventWriter w = source.accelWriter();
            Thread writer = RealtimeThreads.start("bench-sensor-writer", policyFor.apply(WRITER_PRIORITY), () -> {
                long next = Linux.monotonicNanos() + PERIOD_NANOS;
                for (long i = 0; i < warmup + frames; i++, next += PERIOD_NANOS) {
                    Linux.sleepUntilNanos(next);
                    int seq = (int) (i % SEQUENCES);
                    probe.measured[seq] = i >= warmup;
                    long t = Linux.monotonicNanos();
                    probe.writeNanos[seq] = t;
                    // x carries the sequence; z changes too, as evdev drops frames whose values did not
                    w.writeFrameAt(t, seq, 0, 9_807 + (int) (i & 1));
                    written[0]++;
                }
            });
            writer.join();
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (probe.received < written[0] && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            stop.set(true);
            for (Thread t : noiseThreads) {
                t.join(5_000);
                if (t.isAlive()) {
                    throw new IllegalStateException("noise thread " + t.getName() + " did not stop");
                }
            }
            if (p instanceof RtdroidParticipant) {
                p.stop();
            }
        }
        if (p instanceof FifoParticipant) {
            p.stop(); // its read returned 0 when the source closed
        }
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("gc", gc);
        cases.put("noise", noise);
        cases.put("noise_threads", n);
        cases.put("source", Source.uinputAvailable() ? "uinput" : "fifo");
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("frames_written", written[0]);
        extra.put("frames_received", probe.received);
        extra.put("lost", written[0] - probe.received);
        extra.put("jvm_threads_nice", jvmNice);
        if (noise.equals("memory")) {
            extra.put("memory_rounds", memoryRounds.sum());  // periods of the memory workload completed
            extra.put("memory_overruns", memoryOverruns.sum());  // of them, ended after the next period's start
        }
        return report.row(impl, cases, probe.latency.histogram(), extra, probe.samples);
    }
}
