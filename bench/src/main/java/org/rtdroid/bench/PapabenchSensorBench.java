package org.rtdroid.bench;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.rtdroid.bench.tasks.RtdroidApp;
import org.rtdroid.logic.papabench.MemoryNoise;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.component.RealtimeComponent;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.sensor.sim.FifoInputRoot;

/**
 * The dissertation's Figs. 3.20-3.23 (3.8.3.2, jPapaBench): the sensor path inside jPapaBench. The
 * autopilot example app (its 14 tasks, rtdroid-runtime/examples) is deployed from its manifest into a
 * runtime pinned to the bench CPU; its simulator's {@code ir} task (50 ms) writes an accelerometer
 * and a gyroscope frame into the input devices (here FIFOs standing in for them, as the {@code tasks}
 * benchmark's; their pipe buffers are the seed's "intermediate buffer"), the RT SensorManager's
 * polling thread reads them, the orientation computed from the accelerometer reaches the
 * autopilot's listener. For each orientation delivery the app keeps three times
 * ({@code AutopilotService.sensorDelivery}): the frame's write ({@code SensorEvent.timestamp}), its
 * read by the polling thread ({@code SensorEvent.readNanos}) and the listener's start. The seed's
 * three series: end-to-end (write to listener), buffering (write to read) and the rest of the
 * architecture below the app (read to listener: processing thread and handler).
 *
 * <p>Cases: unloaded (Fig. 3.20), and the seed's three workloads (Figs. 3.21/3.22, 5 and 30 of
 * each; Fig. 3.23's worst case over {@code --runs 10} by the number of noise threads): {@code memory}
 * and {@code computation} as {@link SensorBench#startNoise} (the seed's jPapaBench workload: a 2 MB
 * byte array every 200 ms, every other element dropped, {@code memory-bytes}; 1,000 floating-point
 * multiplications every 20 ms; SCHED_OTHER), and {@code listeners}: low-priority
 * listeners of the same orientation sensor (SCHED_FIFO {@value SensorBench#LOW_PRIORITY} and up,
 * {@value SensorBench#LISTENER_WORK_NANOS} ns of work per event each; the manifest's
 * {@code <sensors listeners>} raised to hold them). Each case deploys the app afresh; the first
 * {@value #WARMUP_DELIVERIES} deliveries (quick: {@value #WARMUP_DELIVERIES_QUICK}) are left out
 * (the JIT's warm-up). Every delivery is a raw sample ({@code t_ns,e2e_ns,buffering_ns,delivery_ns}).
 * The Android cell's counterpart: {@code android-cell/bench/run.sh sensor}.
 */
final class PapabenchSensorBench implements Benchmark {
    static final String APP = "autopilot";
    static final String SERVICE = "AutopilotService";
    static final long IR_PERIOD_NANOS = 50_000_000L;
    static final int WARMUP_DELIVERIES = 40;
    static final int WARMUP_DELIVERIES_QUICK = 10;
    static final String[] NOISE = {"memory", "computation", "listeners"};

    @Override
    public String name() {
        return "sensor-papabench";
    }

    @Override
    public String description() {
        return "Figs. 3.20-3.23: jPapaBench's sensor path, end-to-end, buffering and delivery, under noise";
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        CpuSet cpu = o.cpuSet();
        // the quick form has Fig. 3.21's 5 and 30 too (and Fig. 3.23's worst cases of 30 threads)
        int[] counts = o.cases(new int[] {5, 30}, new int[] {5, 30}, new int[] {5, 10, 15, 20, 25, 30});
        double seconds = o.secondsOr(40);
        int deliveries = (int) Math.max(1, Math.round(seconds * 1e9 / IR_PERIOD_NANOS));
        int warmup = o.quick() ? WARMUP_DELIVERIES_QUICK : WARMUP_DELIVERIES;
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] {"none", 0});
        for (String kind : NOISE) {
            for (int n : counts) {
                cases.add(new Object[] {kind, n});
            }
        }
        try (FifoInputRoot devices = FifoInputRoot.create("rtdroid-bench-input-")) {
            for (Object[] c : cases) {
                String noise = (String) c[0];
                int n = (Integer) c[1];
                double bound = (deliveries + warmup) * IR_PERIOD_NANOS / 1e9 * 3 + 60;
                try (Watchdog.Phase phase = Watchdog.phase("sensor-papabench " + noise + " " + n, bound + 30)) {
                    runCase(report, cpu, noise, n, deliveries, warmup, (long) (bound * 1e9));
                }
                System.gc();
            }
        }
        report.note("e2e = the ir task's write(2) of the accelerometer frame (its SYN_REPORT stamp) to the start of the"
                + " autopilot's onSensorChanged for the orientation computed from it; buffering = the write to the polling"
                + " thread's read of the frame (SensorEvent.readNanos); delivery = that read to the listener (processing"
                + " thread, orientation fusion, the listener's handler); one frame every 50 ms (jPapaBench's IR task); all"
                + " threads on CPU " + o.cpu() + "; the app's threads at its manifest's SCHED_FIFO priorities; memory and"
                + " computation noise SCHED_OTHER; listener noise at SCHED_FIFO " + SensorBench.LOW_PRIORITY + ".."
                + (SensorBench.LOW_PRIORITY + 29) + ", " + SensorBench.LISTENER_WORK_NANOS / 1000 + " us per event each; memory"
                + " noise: every 200 ms a 2 MB byte array (" + MemoryNoise.ELEMENTS + " elements of "
                + MemoryNoise.ELEMENT_BYTES + " bytes), every other element dropped, then the array (3.8.3.2)");
        report.note("source=fifo: the input devices are named pipes (mkfifo) carrying kernel-format input_event records,"
                + " as the tasks benchmark's; the kernel's input core and evdev are not in the path");
    }

    private static void runCase(Report report, CpuSet cpu, String noise, int n, int deliveries, int warmup, long boundNanos)
            throws Exception {
        int listeners = noise.equals("listeners") ? n + 2 : 2;
        Latency e2e = new Latency();
        Latency buffering = new Latency();
        Latency delivery = new Latency();
        Samples samples = new Samples(deliveries, "t_ns", "e2e_ns", "buffering_ns", "delivery_ns");
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder rounds = new LongAdder();
        LongAdder overruns = new LongAdder();
        List<Thread> noiseThreads = List.of();
        double sum = 0;
        double squares = 0;
        long skipped;
        try (RtdroidApp app = new RtdroidApp(cpu, TasksBench.apps(), APP,
                m -> m.replaceFirst("<sensors listeners=\"\\d+\"", "<sensors listeners=\"" + listeners + "\""))) {
            DeployedApp deployed = app.deployed();
            RealtimeComponent service = deployed.component(SERVICE);
            // the app's classes come from its own class loader: its log is read reflectively (not on a real-time path)
            Method count = service.getClass().getMethod("sensorDeliveries");
            Method read = service.getClass().getMethod("sensorDelivery", long.class, long[].class);
            int kept = service.getClass().getField("SENSOR_LOG").getInt(null);
            if (noise.equals("listeners")) {
                SensorService sensors = deployed.sensorService();
                for (int i = 0; i < n; i++) {
                    SensorManager low = sensors.manager(SensorBench.LOW_PRIORITY + i);
                    low.registerListener(e -> SensorBench.work(SensorBench.LISTENER_WORK_NANOS),
                            low.getDefaultSensor(Sensor.TYPE_ORIENTATION), SensorManager.SENSOR_DELAY_FASTEST);
                }
            }
            if (noise.equals("memory") || noise.equals("computation")) {
                noiseThreads = SensorBench.startNoise(noise.equals("memory") ? "memory-bytes" : noise, n, cpu, stop, rounds,
                        overruns);
            }
            long[] t = new long[3];
            long next = 0;
            long first = -1;
            long giveUp = System.nanoTime() + boundNanos;
            while (samples.count() < deliveries) {
                if (System.nanoTime() > giveUp) {
                    throw new IllegalStateException("sensor-papabench " + noise + " " + n + ": " + samples.count() + " of "
                            + deliveries + " deliveries before the bound");
                }
                Thread.sleep(50);
                long logged = (Long) count.invoke(service);
                if (logged - next > kept - 16) {
                    throw new IllegalStateException("sensor-papabench: the app's delivery log was overwritten before it was read");
                }
                for (; next < logged && samples.count() < deliveries; next++) {
                    if (next < warmup || !(Boolean) read.invoke(service, next, t)) {
                        continue;
                    }
                    if (first < 0) {
                        first = t[0];
                    }
                    long total = t[2] - t[0];
                    e2e.recordNanos(total);
                    buffering.recordNanos(t[1] - t[0]);
                    delivery.recordNanos(t[2] - t[1]);
                    samples.add(t[0] - first, total, t[1] - t[0], t[2] - t[1]);
                    sum += total;
                    squares += (double) total * total;
                }
            }
            skipped = (Long) count.invoke(service) - samples.count();
        } finally {
            stop.set(true);
            for (Thread th : noiseThreads) {
                th.join(5_000);
            }
        }
        for (Thread th : noiseThreads) {
            if (th.isAlive()) {
                throw new IllegalStateException("noise thread " + th.getName() + " did not stop");
            }
        }
        int k = samples.count();
        double mean = sum / k;
        double sd = k < 2 ? 0 : Math.sqrt(Math.max(0, (squares - k * mean * mean) / (k - 1)));
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("noise", noise);
        cases.put("noise_threads", n);
        cases.put("source", "fifo");
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("mean_us", Math.round(mean / 10.0) / 100.0);
        extra.put("sd_us", Math.round(sd / 10.0) / 100.0);
        extra.put("buffering_p50_us", micros(buffering.histogram().getValueAtPercentile(50)));
        extra.put("buffering_max_us", micros(buffering.histogram().getMaxValue()));
        extra.put("delivery_p50_us", micros(delivery.histogram().getValueAtPercentile(50)));
        extra.put("delivery_max_us", micros(delivery.histogram().getMaxValue()));
        extra.put("deliveries_not_measured", skipped);  // the warm-up and those after the last sample
        if (noise.equals("memory")) {
            extra.put("memory_rounds", rounds.sum());
            extra.put("memory_overruns", overruns.sum());
        }
        Report.Row row = report.row("rtdroid", cases, e2e.histogram(), extra, samples);
        System.out.printf(Locale.ROOT, "  rtdroid %-11s x%-3d deliveries %5d  e2e p50 %8.1f us  max %8.1f us  buffering max %8.1f us"
                + "  delivery max %8.1f us%n", noise, n, k, row.p50Micros(), micros(e2e.histogram().getMaxValue()),
                micros(buffering.histogram().getMaxValue()), micros(delivery.histogram().getMaxValue()));
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 10.0) / 100.0;
    }
}
