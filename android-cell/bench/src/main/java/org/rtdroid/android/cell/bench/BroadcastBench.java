package org.rtdroid.android.cell.bench;

import org.rtdroid.android.cell.CellContextImplShadow;
import org.rtdroid.android.cell.CellLogShadow;
import org.rtdroid.android.cell.Main;
import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.broadcast.BroadcastQueue;
import org.rtdroid.android.cell.os.RealtimeScheduling;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Handler;
import android.os.Looper;

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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.junit.Test;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;
import org.rtdroid.android.proxy.ProxyContract;
import org.rtdroid.json.JsonWriter;

/**
 * `make bench BENCH=broadcast` (Kalkov et al., seed 001): the latency of one high-priority
 * broadcast sent among N parallel low-priority ones, N in {0, 10, 100}, in the Android cell's
 * framework sandbox through the cell's broadcast queue, from Context.sendBroadcast to the
 * registered receiver's onReceive on the main looper. Each round: a gate broadcast's receiver
 * holds the delivery slot while N sender threads (priority 0) send one broadcast each at once;
 * when the N are queued the high sender (priority 90, a SCHED_FIFO thread when the cell may set
 * one, as seed 001's "real-time thread") sends, and once that one is queued too the gate returns:
 * the high intent meets N queued low ones and is measured from its sendBroadcast (on its own
 * thread) to its receiver. Each low one's receiver works LOW_WORK_NANOS. The round
 * ends when all N + 2 arrived. impl "priority" is the cell's queue (the real-time sender named by a stack walk),
 * "priority-uid" the same with the sender named as the system server's IPC names it (the kernel's uid), "fifo" the same
 * queue with stock Android's discipline (one FIFO lane), in the same run, round by round in turn. Percentiles from
 * HdrHistogram; writes &lt;out&gt;/broadcast.json (rows: impl, low_intents, count, p50_us,
 * p99_us, p999_us, max_us; the priority rows also sender_check_p50_us and _p99_us, the part of
 * the high intent's path spent in the queue's sender-identity check) in the bench/ format, for
 * bench/plot.py.
 *
 * <pre>java @android-cell/target/dist/jvm.args -cp 'android-cell/target/dist/lib/*:android-cell/target/bench/lib/*' \
 *     org.rtdroid.android.cell.bench.BroadcastBench [--rounds R] [--out DIR]</pre>
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class BroadcastBench {
    static final String LOW = "org.rtdroid.bench.LOW";
    static final String HIGH = "org.rtdroid.bench.HIGH";
    static final String GATE = "org.rtdroid.bench.GATE";
    static final int HIGH_PRIORITY = 90;
    static final int[] LOW_INTENTS = {0, 10, 100};
    static final int WARMUP_ROUNDS = 300;
    /** Work of the receiver of each low intent (a busy spin), as a real receiver does some. */
    static final long LOW_WORK_NANOS = 10_000;

    /** Handed from main() into the sandbox, which loads this class again: system properties. */
    private static final String PROP_ROUNDS = "org.rtdroid.bench.broadcast.rounds";
    private static final String PROP_OUT = "org.rtdroid.bench.broadcast.out";
    private final int rounds = Integer.getInteger(PROP_ROUNDS, 2000);
    private final Path out = Path.of(System.getProperty(PROP_OUT, "build/bench"));
    /** Whether the high sender ran at SCHED_FIFO (the cell may set it). */
    private volatile boolean senderFifo;
    private String realtimeScheduling = "?";

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (a.equals("--rounds") && v != null && v.matches("[1-9][0-9]{0,6}")) {
                System.setProperty(PROP_ROUNDS, v);
                i++;
            } else if (a.equals("--out") && v != null) {
                System.setProperty(PROP_OUT, v);
                i++;
            } else {
                System.err.println("BroadcastBench: bad argument '" + a + "' (usage: [--rounds 1..9999999] [--out DIR])");
                System.exit(2);
            }
        }
        Result r = new JUnitCore().run(Request.method(BroadcastBench.class, "measure"));
        r.getFailures().forEach(f -> System.err.println(f.getTrace()));
        System.exit(r.wasSuccessful() ? 0 : 1);
    }

    /**
     * One measured (impl, N); {@code check}: the time of the high sender's identity check within
     * its send (the priority queue's; null for fifo, which has no real-time lane to guard).
     */
    /** The impls' names, in the order of {@code impls}. */
    static final String[] IMPL_NAMES = {"priority", "priority-uid", "fifo"};
    /** The caller the kernel-named sends carry: an app holding REALTIME_BROADCAST (the proxy). */
    static final String UID_NAMED_CALLER = "org.rtdroid.proxy";
    /** Whether this round's high send is named by uid (priority-uid's rounds). */
    private volatile boolean namedByUid;

    private record Row(String impl, int lowIntents, Histogram high, Histogram check, long dropped, double queuedAtSend) {
        double p(double percentile) {
            return high.getValueAtPercentile(percentile) / 1000.0;
        }

        double checkP(double percentile) {
            return check.getValueAtPercentile(percentile) / 1000.0;
        }
    }

    @Test
    public void measure() throws Exception {
        Application app = RuntimeEnvironment.getApplication();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        List<Row> rows = new ArrayList<>();
        // priority (a stack walk names the real-time sender), priority-uid (the sender named as the
        // system server's IPC names it: by the kernel's uid, a look-up of that app's grants), fifo
        BroadcastQueue.Discipline[] impls = {BroadcastQueue.Discipline.PRIORITY, BroadcastQueue.Discipline.PRIORITY,
            BroadcastQueue.Discipline.FIFO};
        CellActivityManager[] cells = new CellActivityManager[impls.length];
        for (int i = 0; i < impls.length; i++) {
            cells[i] = new CellActivityManager(app, Files.createTempDirectory("bcast-bench"), null, impls[i]);
            cells[i].broadcasts.start();
        }
        try {
            measure(app, cells, impls, 100, WARMUP_ROUNDS, null); // JIT warm-up of both
            realtimeScheduling = cells[0].broadcasts.realtimeScheduling();
            System.out.println("BroadcastBench: priority queue's real-time path " + realtimeScheduling
                    + ", high sender " + (senderFifo ? "SCHED_FIFO" : "SCHED_OTHER (not permitted)"));
            for (int n : LOW_INTENTS) {
                measure(app, cells, impls, n, rounds, rows);
            }
        } finally {
            for (CellActivityManager am : cells) {
                am.broadcasts.stop();
            }
            CellContextImplShadow.detach();
        }
        write(started, rows);
    }

    /**
     * One case: rounds alternate between the impls (the cell's system server is switched between
     * rounds), so that both see the same machine; this shared VM's load moves within seconds.
     */
    private void measure(Application app, CellActivityManager[] cells, BroadcastQueue.Discipline[] impls, int n,
            int rounds, List<Row> rows) throws Exception {
        Histogram[] hs = new Histogram[impls.length];
        Histogram[] checks = new Histogram[impls.length];
        for (int i = 0; i < hs.length; i++) {
            hs[i] = BenchResult.histogram();
            checks[i] = BenchResult.histogram();
        }
        Histogram[] current = new Histogram[1];
        long[] queuedAtSend = new long[impls.length];
        AtomicLong highSent = new AtomicLong();
        CountDownLatch[] roundDone = new CountDownLatch[1];
        CountDownLatch[] gateEntered = new CountDownLatch[1];
        CountDownLatch[] lowsQueued = new CountDownLatch[1];
        BroadcastQueue[] queue = new BroadcastQueue[1];
        BroadcastReceiver receiver = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                if (GATE.equals(i.getAction())) {
                    // Holds the delivery slot until the N lows, then the high one, are queued.
                    gateEntered[0].countDown();
                    awaitQueued(queue[0], n);
                    lowsQueued[0].countDown();
                    awaitQueued(queue[0], n + 1);
                } else if (HIGH.equals(i.getAction())) {
                    current[0].recordValue(System.nanoTime() - highSent.get());
                } else {
                    long until = System.nanoTime() + LOW_WORK_NANOS;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                }
                roundDone[0].countDown();
            }
        };
        IntentFilter f = new IntentFilter(LOW);
        f.addAction(HIGH);
        f.addAction(GATE);
        Intent gate = new Intent(GATE).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 0);
        app.registerReceiver(receiver, f);
        Intent low = new Intent(LOW).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 0);
        Intent high = new Intent(HIGH).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, HIGH_PRIORITY);
        CyclicBarrier go = new CyclicBarrier(n + 1);
        CountDownLatch[] lowsSent = new CountDownLatch[1];
        List<Thread> senders = new ArrayList<>();
        boolean[] stop = {false};
        for (int s = 0; s < n; s++) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        go.await();
                        if (stop[0]) {
                            return;
                        }
                        app.sendBroadcast(low);
                        lowsSent[0].countDown();
                    }
                } catch (Exception e) {
                    // the run is over
                }
            }, "low-sender-" + s);
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            senders.add(t);
            t.start();
        }
        // The high sender is a thread of its own and a real-time one, as in seed 001's evaluation
        // ("1 real-time thread & k regular threads"), for both impls; the low senders are
        // ordinary threads. It stamps the send time itself, just before its sendBroadcast.
        Semaphore highGo = new Semaphore(0);
        Thread highSender = new Thread(() -> {
            senderFifo = RealtimeScheduling.set(0, RealtimeScheduling.SCHED_FIFO, RealtimeScheduling.DELIVERY_PRIORITY) == 0;
            try {
                while (true) {
                    highGo.acquire();
                    if (stop[0]) {
                        return;
                    }
                    highSent.set(System.nanoTime());
                    if (namedByUid) {
                        queue[0].sendBroadcastAs(UID_NAMED_CALLER, high);
                    } else {
                        app.sendBroadcast(high);
                    }
                }
            } catch (InterruptedException e) {
                // the run is over
            }
        }, "high-sender");
        highSender.setDaemon(true);
        highSender.setPriority(Thread.MAX_PRIORITY);
        highSender.start();
        for (int r = 0; r < rounds * impls.length; r++) {
            int impl = r % impls.length;
            CellContextImplShadow.attach(cells[impl]);
            current[0] = hs[impl];
            queue[0] = cells[impl].broadcasts;
            namedByUid = IMPL_NAMES[impl].equals("priority-uid");
            roundDone[0] = new CountDownLatch(n + 2);
            gateEntered[0] = new CountDownLatch(1);
            lowsQueued[0] = new CountDownLatch(1);
            lowsSent[0] = new CountDownLatch(n);
            app.sendBroadcast(gate);
            gateEntered[0].await();
            go.await();
            lowsSent[0].await();
            lowsQueued[0].await();
            queuedAtSend[impl] += queue[0].queued();
            long checked = queue[0].senderCheckNanos();
            highGo.release();
            roundDone[0].await();
            if (impls[impl] == BroadcastQueue.Discipline.PRIORITY) {
                // the round's one real-time send; the check ends before it queues, so before its delivery
                checks[impl].recordValue(queue[0].senderCheckNanos() - checked);
            }
        }
        stop[0] = true;
        highGo.release();
        highSender.join();
        go.await();
        for (Thread t : senders) {
            t.join();
        }
        // unregister on the main looper, where the queue reads the registrations
        CountDownLatch unregistered = new CountDownLatch(1);
        new Handler(Looper.getMainLooper()).post(() -> {
            app.unregisterReceiver(receiver);
            unregistered.countDown();
        });
        unregistered.await();
        if (rows == null) {
            return;
        }
        for (int i = 0; i < impls.length; i++) {
            boolean priority = impls[i] == BroadcastQueue.Discipline.PRIORITY;
            String impl = IMPL_NAMES[i];
            Histogram h = hs[i];
            Row row = new Row(impl, n, h, priority ? checks[i] : null, cells[i].broadcasts.dropped(),
                    (double) queuedAtSend[i] / rounds);
            rows.add(row);
            System.out.printf(Locale.ROOT, "  %-9s low_intents %4d  count %6d  p50 %9.1f us  p99 %9.1f us  p99.9 %9.1f us  max %9.1f us  queued at send %5.1f%s%n",
                    impl, n, h.getTotalCount(), row.p(50), row.p(99), row.p(99.9), h.getMaxValue() / 1000.0, row.queuedAtSend(),
                    priority ? String.format(Locale.ROOT, "  of it the sender check p50 %.1f us p99 %.1f us", row.checkP(50), row.checkP(99)) : "");
        }
    }

    private static void awaitQueued(BroadcastQueue q, int count) {
        while (q.queued() < count) {
            Thread.onSpinWait();
        }
    }

    private void write(Instant started, List<Row> rows) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bench", "broadcast");
        root.put("started", started.toString());
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("cpus", Runtime.getRuntime().availableProcessors());
        host.put("kernel", BenchResult.firstLine("/proc/sys/kernel/osrelease"));
        host.put("java", Runtime.version().toString());
        host.put("sched_fifo_permitted", senderFifo);
        root.put("host", host);
        root.put("case_fields", List.of("low_intents"));
        List<Object> rs = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("impl", r.impl());
            m.put("low_intents", r.lowIntents());
            m.put("count", r.high().getTotalCount());
            m.put("p50_us", rounded(r.p(50), 100));
            m.put("p99_us", rounded(r.p(99), 100));
            m.put("p999_us", rounded(r.p(99.9), 100));
            m.put("max_us", rounded(r.high().getMaxValue() / 1000.0, 100));
            m.put("dropped", r.dropped());
            m.put("queued_at_send_mean", rounded(r.queuedAtSend(), 10));
            if (r.check() != null) {
                m.put("sender_check_p50_us", rounded(r.checkP(50), 100));
                m.put("sender_check_p99_us", rounded(r.checkP(99), 100));
            }
            rs.add(m);
        }
        root.put("rows", rs);
        Row p0 = find(rows, "priority", 0);
        Row p100 = find(rows, "priority", 100);
        Row f100 = find(rows, "fifo", 100);
        Row u0 = find(rows, "priority-uid", 0);
        Row u100 = find(rows, "priority-uid", 100);
        double bounded = p100.p(99) / p0.p(99);
        double fifoWorse = f100.p(99) / p100.p(99);
        double uidBounded = u100.p(99) / u0.p(99);
        double uidFifoWorse = f100.p(99) / u100.p(99);
        root.put("goals", List.of(
                goal("priority: the high intent's p99 at N=100 within 1.5x its p99 at N=0",
                        String.format(Locale.ROOT, "%.1f us vs %.1f us (%.2fx)", p100.p(99), p0.p(99), bounded), bounded <= 1.5),
                goal("fifo: the high intent's p99 at N=100 at least 10x the priority queue's",
                        String.format(Locale.ROOT, "%.1f us vs %.1f us (%.1fx)", f100.p(99), p100.p(99), fifoWorse), fifoWorse >= 10),
                goal("priority-uid: the high intent's p99 at N=100 within 1.5x its p99 at N=0",
                        String.format(Locale.ROOT, "%.1f us vs %.1f us (%.2fx)", u100.p(99), u0.p(99), uidBounded), uidBounded <= 1.5),
                goal("fifo: the high intent's p99 at N=100 at least 10x priority-uid's",
                        String.format(Locale.ROOT, "%.1f us vs %.1f us (%.1fx)", f100.p(99), u100.p(99), uidFifoWorse),
                        uidFifoWorse >= 10)));
        root.put("notes", List.of("rounds " + rounds + " per case after " + WARMUP_ROUNDS
                + " warm-up rounds of each impl at N=100; the impls' rounds alternate; each low intent's receiver works "
                + LOW_WORK_NANOS / 1000 + " us; queued_at_send_mean: broadcasts queued when the high one is sent; the high sender at priority " + HIGH_PRIORITY
                + (senderFifo ? " (a SCHED_FIFO thread)" : " (SCHED_OTHER: SCHED_FIFO not permitted)") + ", N low senders at 0 (SCHED_OTHER);"
                + " the priority queue's real-time path (delivery thread, main looper while a real-time broadcast waits): " + realtimeScheduling
                + "; sender_check_*: the part of the high intent's latency spent in the queue's check that a real-time sender holds"
                + " REALTIME_BROADCAST: for priority a walk of the sender's stack for the nearest app frame (the check of a send from app code"
                + " in the system server's JVM), for priority-uid a look-up of the grants of the app the kernel's uid names (the check of a send"
                + " over the system server's IPC, whose socket hop is not in these figures)"));
        Files.createDirectories(out);
        Path file = out.resolve("broadcast.json");
        Files.writeString(file, JsonWriter.write(root));
        System.out.println("BroadcastBench: wrote " + file + "; goals: bounded " + String.format(Locale.ROOT, "%.2fx", bounded)
                + ", fifo " + String.format(Locale.ROOT, "%.1fx", fifoWorse) + "; by uid: bounded "
                + String.format(Locale.ROOT, "%.2fx", uidBounded) + ", fifo " + String.format(Locale.ROOT, "%.1fx", uidFifoWorse));
    }

    /** {@code v} to 1/{@code per} (the figures' printed precision). */
    private static double rounded(double v, int per) {
        return Math.round(v * per) / (double) per;
    }

    private static Map<String, Object> goal(String text, String measured, boolean met) {
        System.out.println("  goal " + (met ? "MET    " : "NOT MET") + ": " + text + " -- " + measured);
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("text", text);
        g.put("measured", measured);
        g.put("met", met);
        return g;
    }

    private static Row find(List<Row> rows, String impl, int n) {
        return rows.stream().filter(r -> r.impl().equals(impl) && r.lowIntents() == n).findFirst().orElseThrow();
    }
}
