package org.rtdroid.android.cell.bench;

import org.rtdroid.android.cell.CellContextImplShadow;
import org.rtdroid.android.cell.CellLogShadow;
import org.rtdroid.android.cell.Main;
import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.broadcast.BroadcastQueue;
import org.rtdroid.android.cell.os.RealtimeScheduling;
import org.rtdroid.android.content.LocalBroadcastManager;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Handler;
import android.os.Looper;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;
import org.rtdroid.android.proxy.ProxyContract;

/**
 * Seed 001's evaluation (Kalkov et al., "Predictable Broadcasting of Parallel Intents in Real-Time
 * Android"): one real-time thread and k_nrt regular threads each send N intents, one every
 * {@code period} ms (the threads' phases spread over it); one broadcast receiver on the main looper
 * only takes the time; the delay of each real-time intent, from just before its sendBroadcast to
 * its receiver, is kept per intent. Two paths:
 * <ul>
 *   <li>{@code ams}: Context.sendBroadcast through the cell's broadcast queue (the system server's
 *       AMS), impl {@code fifo} (the original: one FIFO queue), {@code foreground} (the original
 *       with {@link Intent#FLAG_RECEIVER_FOREGROUND} on the real-time intents: AMS's foreground
 *       queue served first) and {@code priority} (the cell's: priority order, a real-time lane and
 *       delivery thread, the priority guard);</li>
 *   <li>{@code lbm}: LocalBroadcastManager within the app, impl {@code fifo} (the support
 *       library's behaviour, {@link StockLocalBroadcastManager}) and {@code priority} (the cell's
 *       {@link LocalBroadcastManager}: priority order, real-time intents at the front of the main
 *       looper's queue).</li>
 * </ul>
 * k_nrt in {10, 20, ..., 100} (the seed: 10 for the per-intent plot, 25..100 under load); N = 1,000
 * with --full (the seed's), else 200 (quick: k_nrt 10 and 100, N = 50). The real-time sender is a
 * SCHED_FIFO thread where the cell may set one, at sender priority 90; the regular ones SCHED_OTHER
 * at 0. Writes &lt;out&gt;/intents.json (rows: impl, path, k_nrt, count, p50_us, p99_us, p999_us,
 * max_us, dropped, undelivered, samples) and one CSV per row under &lt;out&gt;/intents.samples/run1/
 * ({@code intent,delay_ns}; an intent the queue dropped has no line).
 *
 * <pre>android-cell/bench/run.sh intents [--quick|--full] [--period-ms P] [--out DIR]</pre>
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class IntentDelayBench {
    static final String ACTION = "org.rtdroid.bench.INTENT";
    static final String EXTRA_SENT = "org.rtdroid.bench.SENT";
    static final String EXTRA_SEQ = "org.rtdroid.bench.SEQ";
    static final int RT_SENDER_PRIORITY = 90;
    static final long GIVE_UP_NANOS = 20_000_000_000L;

    private static final String PROP_FORM = "org.rtdroid.bench.intents.form";
    private static final String PROP_PERIOD = "org.rtdroid.bench.intents.periodMs";
    private static final String PROP_OUT = "org.rtdroid.bench.intents.out";
    private final String form = System.getProperty(PROP_FORM, "default");
    private final int periodMs = Integer.getInteger(PROP_PERIOD, 5);
    private final Path out = Path.of(System.getProperty(PROP_OUT, "build/bench"));
    private volatile boolean senderFifo;

    /** One path and impl: how a broadcast is sent and how the receiver is registered. */
    private interface Path_ {
        void register(BroadcastReceiver r, IntentFilter f);

        void unregister(BroadcastReceiver r);

        boolean send(Intent i);
    }

    private record Row(String impl, String path, int k, Histogram h, long sent, long dropped, long undelivered,
                       String samples) {}

    @Test
    public void measure() throws Exception {
        Application app = RuntimeEnvironment.getApplication();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        int[] ks = form.equals("quick") ? new int[] {10, 100} : new int[] {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
        int n = form.equals("quick") ? 50 : form.equals("full") ? 1000 : 200;
        String[][] impls = {{"ams", "fifo"}, {"ams", "foreground"}, {"ams", "priority"}, {"lbm", "fifo"}, {"lbm", "priority"}};
        Path samplesDir = BenchResult.samplesDirectory(out, "intents");
        List<Row> rows = new ArrayList<>();
        Map<String, CellActivityManager> cells = new LinkedHashMap<>();
        for (String[] impl : impls) {
            if (impl[0].equals("ams")) {
                BroadcastQueue.Discipline d = switch (impl[1]) {
                    case "fifo" -> BroadcastQueue.Discipline.FIFO;
                    case "foreground" -> BroadcastQueue.Discipline.FOREGROUND;
                    default -> BroadcastQueue.Discipline.PRIORITY;
                };
                CellActivityManager am = new CellActivityManager(app, Files.createTempDirectory("intents-bench"), null, d);
                am.broadcasts.start();
                cells.put(impl[1], am);
            }
        }
        StockLocalBroadcastManager stock = new StockLocalBroadcastManager(app);
        LocalBroadcastManager lbm = LocalBroadcastManager.getInstance(app);
        try {
            for (String[] impl : impls) {
                Path_ path = path(app, impl, cells, stock, lbm);
                runCase(app, path, impl, 10, Math.min(n, 200), null, null); // JIT warm-up, not recorded
            }
            int file = 0;
            for (int k : ks) {
                for (String[] impl : impls) {
                    Path_ path = path(app, impl, cells, stock, lbm);
                    Path csv = samplesDir.resolve(String.format(Locale.ROOT, "%03d_%s_%s_%d.csv", ++file, impl[1], impl[0], k));
                    Row r = runCase(app, path, impl, k, n, csv, out.relativize(csv).toString());
                    rows.add(r);
                    System.out.printf(Locale.ROOT, "  %-10s %-4s k_nrt %3d  delivered %5d of %5d  dropped %4d  p50 %9.1f us  p99 %9.1f us  max %9.1f us%n",
                            r.impl(), r.path(), k, r.h().getTotalCount(), r.sent(), r.dropped(),
                            r.h().getValueAtPercentile(50) / 1e3, r.h().getValueAtPercentile(99) / 1e3, r.h().getMaxValue() / 1e3);
                }
            }
        } finally {
            for (CellActivityManager am : cells.values()) {
                am.broadcasts.stop();
            }
            CellContextImplShadow.detach();
        }
        write(started, rows, n);
    }

    private Path_ path(Application app, String[] impl, Map<String, CellActivityManager> cells,
                       StockLocalBroadcastManager stock, LocalBroadcastManager lbm) {
        if (impl[0].equals("ams")) {
            CellActivityManager am = cells.get(impl[1]);
            return new Path_() {
                public void register(BroadcastReceiver r, IntentFilter f) {
                    CellContextImplShadow.attach(am);
                    app.registerReceiver(r, f);
                }

                public void unregister(BroadcastReceiver r) {
                    onMainLooper(() -> app.unregisterReceiver(r));
                }

                public boolean send(Intent i) {
                    app.sendBroadcast(i);
                    return true;
                }
            };
        }
        if (impl[1].equals("fifo")) {
            return new Path_() {
                public void register(BroadcastReceiver r, IntentFilter f) { stock.registerReceiver(r, f); }
                public void unregister(BroadcastReceiver r) { stock.unregisterReceiver(r); }
                public boolean send(Intent i) { return stock.sendBroadcast(i); }
            };
        }
        return new Path_() {
            public void register(BroadcastReceiver r, IntentFilter f) { lbm.registerReceiver(r, f); }
            public void unregister(BroadcastReceiver r) { lbm.unregisterReceiver(r); }
            public boolean send(Intent i) { return lbm.sendBroadcast(i); }
        };
    }

    private static void onMainLooper(Runnable r) {
        CountDownLatch done = new CountDownLatch(1);
        new Handler(Looper.getMainLooper()).post(() -> {
            r.run();
            done.countDown();
        });
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One case: the real-time sender and k regular ones, N intents each; the delay of each real-time one. */
    private Row runCase(Application app, Path_ path, String[] impl, int k, int n, Path csv, String csvName) throws Exception {
        long[] delay = new long[n];
        Arrays.fill(delay, -1);
        long[] delivered = new long[1];
        BroadcastReceiver receiver = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                long now = System.nanoTime();
                int seq = i.getIntExtra(EXTRA_SEQ, -1);
                if (seq >= 0) {
                    delay[seq] = now - i.getLongExtra(EXTRA_SENT, now);
                    delivered[0]++;
                }
            }
        };
        path.register(receiver, new IntentFilter(ACTION));
        long periodNanos = periodMs * 1_000_000L;
        long start = System.nanoTime() + 20_000_000L;
        long[] refused = new long[1];
        List<Thread> senders = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            long phase = periodNanos * (s + 1) / (k + 1);
            Thread t = new Thread(() -> {
                for (int i = 0; i < n; i++) {
                    sleepUntil(start + phase + i * periodNanos);
                    path.send(new Intent(ACTION).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 0));
                }
            }, "nrt-sender-" + s);
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            senders.add(t);
        }
        boolean foreground = impl[1].equals("foreground");
        Thread rt = new Thread(() -> {
            senderFifo = RealtimeScheduling.set(0, RealtimeScheduling.SCHED_FIFO, RealtimeScheduling.DELIVERY_PRIORITY) == 0;
            for (int i = 0; i < n; i++) {
                sleepUntil(start + i * periodNanos);
                Intent intent = new Intent(ACTION).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, RT_SENDER_PRIORITY)
                        .putExtra(EXTRA_SEQ, i);
                if (foreground) {
                    intent.addFlags(Intent.FLAG_RECEIVER_FOREGROUND);
                }
                intent.putExtra(EXTRA_SENT, System.nanoTime());
                if (!path.send(intent)) {
                    refused[0]++;
                }
            }
        }, "rt-sender");
        rt.setDaemon(true);
        rt.setPriority(Thread.MAX_PRIORITY);
        senders.forEach(Thread::start);
        rt.start();
        rt.join();
        for (Thread t : senders) {
            t.join();
        }
        // Wait for the queue to drain: until every intent arrived, or none arrived for a second (a
        // full queue dropped the rest), at most GIVE_UP_NANOS.
        long giveUp = System.nanoTime() + GIVE_UP_NANOS;
        long seen = -1;
        long quietSince = System.nanoTime();
        while (delivered[0] + refused[0] < n && System.nanoTime() < giveUp) {
            LockSupport.parkNanos(5_000_000L);
            if (delivered[0] != seen) {
                seen = delivered[0];
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > 1_000_000_000L) {
                break;
            }
        }
        LockSupport.parkNanos(50_000_000L); // the last deliveries' stores
        path.unregister(receiver);
        Histogram h = BenchResult.histogram();
        long undelivered = 0;
        if (csv != null) {
            try (BufferedWriter w = Files.newBufferedWriter(csv)) {
                w.write("intent,delay_ns\n");
                for (int i = 0; i < n; i++) {
                    if (delay[i] >= 0) {
                        h.recordValue(Math.min(delay[i], BenchResult.HIGHEST_NANOS));
                        w.write(i + "," + delay[i] + "\n");
                    } else {
                        undelivered++;
                    }
                }
            }
        }
        return new Row(impl[1], impl[0], k, h, n, refused[0], undelivered - refused[0], csvName);
    }

    private static void sleepUntil(long deadline) {
        long d;
        while ((d = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(d);
        }
    }

    private void write(Instant started, List<Row> rows, int n) throws IOException {
        Map<String, Object> root = BenchResult.root("intents", started,
                System.getProperty("org.rtdroid.bench.intents.command", "android-cell/bench/run.sh intents"), List.of("path", "k_nrt"), senderFifo);
        List<Object> rs = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("impl", r.impl());
            m.put("path", r.path());
            m.put("k_nrt", r.k());
            m.put("count", r.h().getTotalCount());
            BenchResult.putPercentiles(m, r.h());
            m.put("sent", r.sent());
            m.put("dropped", r.dropped());
            m.put("undelivered", r.undelivered());
            m.put("run", 1);
            m.put("samples", r.samples());
            rs.add(m);
        }
        BenchResult.write(out, "intents.json", root, rs, "one real-time sender ("
                + (senderFifo ? "SCHED_FIFO" : "SCHED_OTHER: SCHED_FIFO not permitted")
                + ", sender priority " + RT_SENDER_PRIORITY + ") and k_nrt regular senders (SCHED_OTHER, priority 0), " + n
                + " intents each, one every " + periodMs + " ms, phases spread; one receiver on the main looper takes the time only;"
                + " delay = just before sendBroadcast to the receiver's onReceive; dropped = refused by the path (a local broadcast queue full),"
                + " undelivered = not received within " + GIVE_UP_NANOS / 1_000_000_000L + " s of the last send nor within a second of the last delivery (a full queue's drop)",
                "IntentDelayBench");
    }
}
