package org.rtdroid.android.cell.bench;

import org.rtdroid.android.cell.CellContextImplShadow;
import org.rtdroid.android.cell.CellLogShadow;
import org.rtdroid.android.cell.ClockPump;
import org.rtdroid.android.cell.Main;
import org.rtdroid.logic.papabench.Flight;
import org.rtdroid.logic.papabench.MemoryNoise;
import org.rtdroid.logic.papabench.Task;

import android.hardware.Sensor;
import android.hardware.SensorEvent;
import android.hardware.SensorEventListener;
import android.os.Handler;
import android.os.HandlerThread;
import android.os.Looper;
import android.os.SystemClock;

import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.HdrHistogram.Histogram;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;

/**
 * Figs. 3.20-3.23's Android side (3.8.3.2): jPapaBench's sensor path as an Android app has it, in
 * the Android cell's framework sandbox, beside the RT cell's ({@code bench/run.sh sensor-papabench}).
 * jPapaBench's 14 tasks ({@link Flight}) run as messages of the app's main looper, as the
 * {@code tasks} benchmark's Android column runs them; the simulator's IR task (50 ms) writes its
 * attitude as one frame of kernel-format {@code struct input_event} records (x roll, y pitch in
 * millidegrees, z a sequence number, SYN_REPORT stamped with CLOCK_MONOTONIC) into an input device
 * (a FIFO standing in for it, as on the RT side: the pipe's buffer is the seed's "intermediate
 * buffer"). Android's delivery: SensorService's thread reads the device (the sensor HAL's poll)
 * and hands each event to every registered listener's queue in registration order, and each
 * queue's events are dispatched to the listener ({@link SensorEventListener#onSensorChanged}, the
 * framework's interface and {@link SensorEvent}) on the looper it registered with: the autopilot's
 * on the main looper, among the other 13 tasks. The framework's own SystemSensorManager needs the
 * native sensor service, which the sandbox does not have: a Handler message to the listener's
 * looper stands in for its BitTube and the looper's file-descriptor wake-up.
 *
 * <p>Cases and noise as the RT side's: unloaded, {@code memory} (jPapaBench's, 3.8.3.2: every 200 ms
 * a 2 MB byte array in 1 KiB elements, every other element dropped, then the array), {@code computation} (1,000 floating-point
 * multiplications every 20 ms) and {@code listeners} (extra listeners of the same sensor, each on a
 * HandlerThread of its own, 20 µs of work per event), 5 and 30 of each (full: 5..30 by 5);
 * every thread SCHED_OTHER. Times: e2e (the frame's stamp to the listener's start), buffering
 * (the stamp to SensorService's read) and delivery (the read to the listener). Writes
 * &lt;out&gt;/sensor-papabench-android.json in the bench's format (with {@code --runs N}: each row's
 * {@code run}, for the worst case over runs) and the raw deliveries under
 * &lt;out&gt;/sensor-papabench-android.samples/run&lt;k&gt;/ ({@code t_ns,e2e_ns,buffering_ns,delivery_ns}).
 *
 * <pre>android-cell/bench/run.sh sensor [--quick|--full] [--runs N] [--out DIR]</pre>
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class SensorPathBench {
    static final String NAME = "sensor-papabench-android";
    static final int RECORD_BYTES = 24;   // struct input_event on a 64-bit kernel
    static final int FRAME_RECORDS = 4;   // ABS_X, ABS_Y, ABS_Z, SYN_REPORT
    static final int EV_SYN = 0;
    static final int EV_ABS = 3;
    static final long IR_PERIOD_MS = Task.IR.periodMillis;
    static final long MEMORY_PERIOD_MS = MemoryNoise.PERIOD_MILLIS;
    static final int COMPUTATION_MULTIPLICATIONS = 1_000;
    static final long COMPUTATION_PERIOD_MS = 20;
    static final long LISTENER_WORK_NANOS = 20_000L;
    static final String[] NOISE = {"memory", "computation", "listeners"};
    static volatile double computationSink;
    private static final String PROP_FORM = "org.rtdroid.bench.sensor.form";
    private static final String PROP_OUT = "org.rtdroid.bench.sensor.out";
    private static final String PROP_RUNS = "org.rtdroid.bench.sensor.runs";
    private static final String PROP_COMMAND = "org.rtdroid.bench.sensor.command";
    private final String form = System.getProperty(PROP_FORM, "default");
    private final Path out = Path.of(System.getProperty(PROP_OUT, "build/bench"));
    private final int runs = Integer.parseInt(System.getProperty(PROP_RUNS, "1"));

    /** One orientation delivery's times, kept by the autopilot's listener on the main looper. */
    static final class Deliveries {
        final long[] stamp;
        final long[] read;
        final long[] start;
        final int warmup;
        int seen;
        int count;

        Deliveries(int n, int warmup) {
            stamp = new long[n];
            read = new long[n];
            start = new long[n];
            this.warmup = warmup;
        }

        void record(long stampNanos, long readNanos, long startNanos) {
            if (seen++ < warmup || count == stamp.length) {
                return;
            }
            stamp[count] = stampNanos;
            read[count] = readNanos;
            start[count] = startNanos;
            count++;
        }

        boolean full() {
            return count == stamp.length;
        }
    }

    /** The autopilot's listener: the attitude for Stabilization, and each delivery's times while measuring. */
    final class Autopilot implements SensorEventListener {
        final Flight flight;
        volatile Deliveries into;
        /** SensorService's read of the event being dispatched (set on the main looper just before the call). */
        long readNanos;

        Autopilot(Flight flight) {
            this.flight = flight;
        }

        @Override
        public void onSensorChanged(SensorEvent e) {
            long start = System.nanoTime();
            flight.ap.attitude(e.values[0] / 1000.0, e.values[1] / 1000.0, 0, 0);
            Deliveries d = into;
            if (d != null) {
                d.record(e.timestamp, readNanos, start);
            }
        }

        @Override
        public void onAccuracyChanged(Sensor sensor, int accuracy) {
        }
    }

    @Test
    public void measure() throws Exception {
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // the quick form has the seed's 5 and 30 of Fig. 3.21 too
        int[] counts = form.equals("quick") ? new int[] {5, 30} : form.equals("full") ? new int[] {5, 10, 15, 20, 25, 30}
                : new int[] {5, 30};
        double seconds = form.equals("quick") ? 1 : form.equals("full") ? 40 : 8;
        int deliveries = (int) Math.round(seconds * 1000 / IR_PERIOD_MS);
        int warmup = form.equals("quick") ? 10 : 40;
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] {"none", 0});
        for (String kind : NOISE) {
            for (int n : counts) {
                cases.add(new Object[] {kind, n});
            }
        }
        Path root = Files.createTempDirectory("rtdroid-android-sensor-");
        Path device = root.resolve("event0");
        Process mkfifo = new ProcessBuilder("mkfifo", device.toString()).inheritIO().start();
        if (mkfifo.waitFor() != 0) {
            throw new IOException("mkfifo failed under " + root);
        }
        Path samplesRoot = out.resolve(NAME + ".samples");
        BenchResult.deleteTree(samplesRoot);
        List<Map<String, Object>> rows = new ArrayList<>();
        Handler main = new Handler(Looper.getMainLooper());
        Flight flight = new Flight();
        Autopilot autopilot = new Autopilot(flight);
        List<Registration> listeners = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        // the sandbox's SystemClock advanced every millisecond by the real time that passed, as the cell's host does
        try (ClockPump clock = ClockPump.start("clock-pump")) {
            Thread service = new Thread(() -> sensorService(device, listeners, done), "SensorService");
            service.setDaemon(true);
            synchronized (listeners) {
                listeners.add(new Registration(autopilot, main));
            }
            service.start();
            try (OutputStream dev = new FileOutputStream(device.toFile())) {
                papabench(main, flight, dev, done);
                for (int run = 1; run <= runs; run++) {
                    Path samples = samplesRoot.resolve("run" + run);
                    Files.createDirectories(samples);
                    int index = 0;
                    for (Object[] c : cases) {
                        String noise = (String) c[0];
                        int n = (Integer) c[1];
                        rows.add(runCase(autopilot, listeners, noise, n, deliveries, warmup, run,
                                samples.resolve(String.format(Locale.ROOT, "%03d_android_%s_%d.csv", ++index, noise, n))));
                    }
                }
            } finally {
                done.set(true);
                service.join(5_000);
            }
        } finally {
            BenchResult.deleteTree(root);
        }
        write(started, rows);
    }

    private record Registration(SensorEventListener listener, Handler handler) {}

    /**
     * jPapaBench's 14 tasks on the main looper, each releasing itself with postAtTime; the IR task
     * writes the attitude into the device instead of handing it to the autopilot directly.
     */
    private void papabench(Handler main, Flight flight, OutputStream dev, AtomicBoolean done) {
        long u0 = SystemClock.uptimeMillis() + 20;
        ByteBuffer frame = ByteBuffer.allocate(RECORD_BYTES * FRAME_RECORDS).order(ByteOrder.LITTLE_ENDIAN);
        long[] seq = new long[1];
        PapabenchLoop.post(main, u0, (task, planned) -> {
            if (done.get()) {
                return false;
            }
            if (task == Task.IR) {
                writeFrame(dev, frame, (int) Math.round(flight.aircraft.rollDeg() * 1000),
                        (int) Math.round(flight.aircraft.pitchDeg() * 1000), (int) (++seq[0] & 0x7fffffff));
            } else {
                flight.run(task);
            }
            return true;
        });
    }

    /** One frame: ABS_X, ABS_Y, ABS_Z and SYN_REPORT, each stamped (struct timeval, µs) with CLOCK_MONOTONIC now. */
    static void writeFrame(OutputStream dev, ByteBuffer frame, int x, int y, int z) {
        long now = System.nanoTime();  // CLOCK_MONOTONIC on Linux, the RT side's time base
        frame.clear();
        int[][] records = {{EV_ABS, 0, x}, {EV_ABS, 1, y}, {EV_ABS, 2, z}, {EV_SYN, 0, 0}};
        for (int[] r : records) {
            frame.putLong(now / 1_000_000_000L).putLong(now / 1_000 % 1_000_000L)
                    .putShort((short) r[0]).putShort((short) r[1]).putInt(r[2]);
        }
        try {
            dev.write(frame.array(), 0, frame.position());
            dev.flush();
        } catch (IOException e) {
            throw new IllegalStateException("the sensor device refused a frame: " + e.getMessage(), e);
        }
    }

    /**
     * SensorService's thread: reads the device, frames its records at SYN_REPORT and hands the event
     * to each registered listener's looper in registration order (Android's SensorService writes it
     * to each connection's channel, and each app's looper dispatches it).
     */
    private void sensorService(Path device, List<Registration> listeners, AtomicBoolean done) {
        Constructor<SensorEvent> make;
        try {
            make = SensorEvent.class.getDeclaredConstructor(int.class);  // the framework's, hidden from apps
            make.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the framework's SensorEvent(int) constructor: " + e, e);
        }
        byte[] record = new byte[RECORD_BYTES];
        ByteBuffer b = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[3];
        try (InputStream in = new FileInputStream(device.toFile())) {
            while (!done.get()) {
                if (in.readNBytes(record, 0, RECORD_BYTES) < RECORD_BYTES) {
                    return; // the writer closed the device
                }
                int type = b.getShort(16);
                int code = b.getShort(18);
                int value = b.getInt(20);
                if (type == EV_ABS && code < 3) {
                    values[code] = value;
                } else if (type == EV_SYN) {
                    long stamp = b.getLong(0) * 1_000_000_000L + b.getLong(8) * 1_000L;
                    long read = System.nanoTime();
                    List<Registration> now;
                    synchronized (listeners) {
                        now = List.copyOf(listeners);
                    }
                    for (Registration r : now) {
                        SensorEvent e = newEvent(make);
                        System.arraycopy(values, 0, e.values, 0, 3);
                        e.timestamp = stamp;
                        r.handler().post(() -> {
                            if (r.listener() instanceof Autopilot a) {
                                a.readNanos = read;
                            }
                            r.listener().onSensorChanged(e);
                        });
                    }
                }
            }
        } catch (IOException e) {
            if (!done.get()) {
                throw new IllegalStateException("SensorService: reading the device: " + e.getMessage(), e);
            }
        }
    }

    private static SensorEvent newEvent(Constructor<SensorEvent> make) {
        try {
            return make.newInstance(3);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the framework's SensorEvent(int) constructor: " + e, e);
        }
    }

    private Map<String, Object> runCase(Autopilot autopilot, List<Registration> listeners, String noise, int n,
                                        int deliveries, int warmup, int run, Path csv) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<HandlerThread> lanes = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < (noise.equals("none") ? 0 : n); i++) {
            long phase = i;
            switch (noise) {
                case "memory" -> threads.add(noiseThread("noise-memory-" + i, stop, start + MEMORY_PERIOD_MS * 1_000_000L * phase / n,
                        MEMORY_PERIOD_MS, MemoryNoise::fragmentOnce));
                case "computation" -> threads.add(noiseThread("noise-computation-" + i, stop,
                        start + COMPUTATION_PERIOD_MS * 1_000_000L * phase / n, COMPUTATION_PERIOD_MS, SensorPathBench::multiply));
                case "listeners" -> {
                    HandlerThread lane = new HandlerThread("noise-listener-" + i);
                    lane.start();
                    lanes.add(lane);
                    SensorEventListener l = new SensorEventListener() {
                        @Override
                        public void onSensorChanged(SensorEvent e) {
                            long end = System.nanoTime() + LISTENER_WORK_NANOS;
                            while (System.nanoTime() < end) {
                                Thread.onSpinWait();
                            }
                        }

                        @Override
                        public void onAccuracyChanged(Sensor sensor, int accuracy) {
                        }
                    };
                    synchronized (listeners) {
                        listeners.add(new Registration(l, new Handler(lane.getLooper())));
                    }
                }
                default -> throw new IllegalArgumentException("unknown noise " + noise);
            }
        }
        Deliveries d = new Deliveries(deliveries, warmup);
        autopilot.into = d;
        long bound = System.nanoTime() + (long) ((deliveries + warmup) * IR_PERIOD_MS * 3e6) + 60_000_000_000L;
        while (!d.full()) {
            if (System.nanoTime() > bound) {
                throw new IllegalStateException(noise + " " + n + ": " + d.count + " of " + deliveries + " deliveries before the bound");
            }
            Thread.sleep(20);
        }
        autopilot.into = null;
        stop.set(true);
        for (Thread t : threads) {
            t.join(5_000);
        }
        synchronized (listeners) {
            listeners.subList(1, listeners.size()).clear();
        }
        for (HandlerThread lane : lanes) {
            lane.quit();
            lane.join(5_000);
        }
        System.gc();
        Histogram e2e = BenchResult.histogram();
        Histogram buffering = BenchResult.histogram();
        Histogram delivery = BenchResult.histogram();
        double sum = 0;
        double squares = 0;
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("t_ns,e2e_ns,buffering_ns,delivery_ns\n");
            for (int i = 0; i < d.count; i++) {
                long total = d.start[i] - d.stamp[i];
                long buffered = d.read[i] - d.stamp[i];
                long rest = d.start[i] - d.read[i];
                e2e.recordValue(Math.max(0, total));
                buffering.recordValue(Math.max(0, buffered));
                delivery.recordValue(Math.max(0, rest));
                sum += total;
                squares += (double) total * total;
                w.write((d.stamp[i] - d.stamp[0]) + "," + total + "," + buffered + "," + rest + "\n");
            }
        }
        double mean = sum / d.count;
        double sd = d.count < 2 ? 0 : Math.sqrt(Math.max(0, (squares - d.count * mean * mean) / (d.count - 1)));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("impl", "android");
        m.put("noise", noise);
        m.put("noise_threads", n);
        m.put("source", "fifo");
        m.put("count", (long) d.count);
        BenchResult.putPercentiles(m, e2e);
        m.put("mean_us", Math.round(mean / 10.0) / 100.0);
        m.put("sd_us", Math.round(sd / 10.0) / 100.0);
        m.put("buffering_p50_us", buffering.getValueAtPercentile(50) / 1e3);
        m.put("buffering_max_us", buffering.getMaxValue() / 1e3);
        m.put("delivery_p50_us", delivery.getValueAtPercentile(50) / 1e3);
        m.put("delivery_max_us", delivery.getMaxValue() / 1e3);
        m.put("run", run);
        m.put("samples", out.relativize(csv).toString());
        System.out.printf(Locale.ROOT, "  android %-11s x%-3d run %d deliveries %5d  e2e p50 %9.1f us  max %9.1f us  buffering max"
                + " %9.1f us  delivery max %9.1f us%n", noise, n, run, d.count, e2e.getValueAtPercentile(50) / 1e3,
                e2e.getMaxValue() / 1e3, buffering.getMaxValue() / 1e3, delivery.getMaxValue() / 1e3);
        return m;
    }

    /** A periodic SCHED_OTHER noise thread: {@code work} every {@code periodMs}, none made up after an overrun. */
    private static Thread noiseThread(String name, AtomicBoolean stop, long firstNanos, long periodMs, Runnable work) {
        Thread t = new Thread(() -> {
            long period = periodMs * 1_000_000L;
            for (long next = firstNanos; !stop.get(); next += period) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                work.run();
                long now = System.nanoTime();
                if (now - next > period) {
                    next = now - period;
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The dissertation's computation workload: 1,000 floating-point multiplications. */
    static void multiply() {
        double v = 1.0 + System.nanoTime() % 7;
        for (int k = 0; k < COMPUTATION_MULTIPLICATIONS; k++) {
            v *= 1.0000001;
        }
        computationSink = v;
    }

    private void write(Instant started, List<Map<String, Object>> rows) throws IOException {
        Map<String, Object> root = BenchResult.root(NAME, started, System.getProperty(PROP_COMMAND, "SensorPathBench"),
                List.of("noise", "noise_threads", "source"), false);
        root.put("runs", runs);
        BenchResult.write(out, NAME + ".json", root, rows, "jPapaBench's 14 tasks as messages of the main looper (SCHED_OTHER);"
                + " the IR task (50 ms) writes its attitude as an input_event frame into a FIFO standing in for the input device;"
                + " SensorService's thread (SCHED_OTHER) reads it and posts the SensorEvent to each listener's looper in"
                + " registration order (the autopilot's: the main looper); e2e = the frame's SYN_REPORT stamp (CLOCK_MONOTONIC, us)"
                + " to the start of onSensorChanged, buffering = to SensorService's read, delivery = the read to the listener;"
                + " noise threads and listener lanes SCHED_OTHER; threads not pinned (the cell's JVM as it runs)", "SensorPathBench");
    }
}
