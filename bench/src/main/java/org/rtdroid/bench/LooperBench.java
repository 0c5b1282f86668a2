package org.rtdroid.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.rtdroid.bench.looper.MessagePolicy;
import org.rtdroid.bench.looper.RtHandler;
import org.rtdroid.bench.looper.RtHandlerThread;
import org.rtdroid.bench.looper.RtLooper;
import org.rtdroid.bench.looper.RtMessage;
import org.rtdroid.bench.looper.fifo.Handler;
import org.rtdroid.bench.looper.fifo.Looper;
import org.rtdroid.bench.looper.fifo.Message;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The dissertation's Fig. 3.9 / 3.12 experiment (3.8.1): a high-priority thread (SCHED_FIFO 80) sends
 * a timestamped message every 100 ms; N low-priority (SCHED_OTHER) threads each send 10 messages
 * every 10 ms to the same looper, N = 0..300 in steps of 10 ({@code --full}; 0..300 in steps of 50
 * by default, {0, 300} quick). We measure the send-to-handleMessage latency of the high-priority
 * messages and keep each one as a raw sample (for Fig. 3.9's scatter). A full case runs 40 s (400
 * high messages) with a hard stop 10 s later, as the seed's did. Extra rows (not quick): the harder
 * variant this benchmark ran before, the high message every 10 ms, at N = 0 and 300
 * ({@code high_period_ms} says which).
 *
 * <p>Participants: {@code rtdroid} (RT looper, per-priority queues, priority inheritance, a bounded
 * pool per sender: a flooding sender drops its own messages), {@code component} (what RT apps
 * use: a message channel to a component's thread, {@link ComponentParticipant}) and {@code fifo}
 * (stock Android semantics: one time-ordered FIFO queue, unbounded). Both looper threads run at the same kernel
 * priority (SCHED_OTHER, the noise senders'), so only the queueing discipline differs (and the RT
 * looper's inheritance of the high message's priority). After the
 * senders stop, each looper drains its backlog, so every high-priority message sent is measured.
 */
final class LooperBench implements Benchmark {
    /** The seed's high-priority period. */
    static final long HIGH_PERIOD_NANOS = 100_000_000L;
    /** The harder variant's high-priority period (extra rows). */
    static final long HARD_HIGH_PERIOD_NANOS = 10_000_000L;
    /** The noise senders' period (10 messages each). */
    static final long PERIOD_NANOS = 10_000_000L;
    static final int NOISE_BURST = 10;
    /** 3.8.1: "executed each experiment for 40 seconds ... and have a hard stop at 50 seconds". */
    static final double SEED_SECONDS = 40;
    /** The quick form's case: 3 high messages (make test's figures; the shapes, not the statistics). */
    static final double QUICK_SECONDS = 0.3;
    static final long SEED_HARD_STOP_NANOS = 10_000_000_000L;
    static final int HIGH_PRIORITY = 80;
    /**
     * The loopers' own priority: 0, SCHED_OTHER, the priority of the noise senders whose messages
     * they mostly handle (Android's loopers are normal threads; in RTDroid, low-priority messages
     * are handled at low priority). The RT looper rises to 80 while a high message waits.
     */
    static final int LOOPER_BASE_PRIORITY = Integer.getInteger("rtdroid.looperBase", 0);
    /**
     * Work in each noise message's handler. The dissertation scaled the low-priority threads "up to
     * the point where the total number of messages sent by the low-priority threads exceeds the
     * ability to process those messages"; with an empty handler this machine never gets there
     * (300 threads, 300,000 messages/s, were handled with no backlog). 3 µs: 300 threads offer
     * 0.9 s of handler work per second, more than a SCHED_OTHER looper shares with them.
     */
    static final long NOISE_WORK_NANOS = Long.getLong("rtdroid.noiseWorkNanos", 3_000L);
    static final int JIT_WARMUP_MESSAGES = 30_000;
    /** The quick form's warm-up: past C2's invocation threshold, not all of its profile. */
    static final int JIT_WARMUP_MESSAGES_QUICK = 10_000;
    static final int WHAT_HIGH = 1;
    static final int WHAT_NOISE = 2;

    @Override
    public String name() {
        return "looper";
    }

    @Override
    public String description() {
        return "Figs. 3.9/3.12: latency of 100 ms high-priority messages vs N low-priority senders (10 msgs / 10 ms each)";
    }

    /** A noise message's handler: {@link #NOISE_WORK_NANOS} of busy work. */
    static long noiseWork(long data) {
        long end = System.nanoTime() + NOISE_WORK_NANOS;
        long spins = 0;
        while (System.nanoTime() < end) {
            spins++;
        }
        return data + spins;
    }

    /** One implementation under test: a looper with a high-priority sending end and N noise ends. */
    interface Participant {
        String impl();

        /** Starts the looper; {@code high} receives the latency of each measured high message. */
        void start(HighRecorder high, int noiseThreads) throws InterruptedException;

        /** @return false if the message was dropped (bounded pool exhausted) */
        boolean sendHigh(long timestampNanos);

        boolean sendNoise(int thread, long timestampNanos);

        void stop() throws InterruptedException;
    }

    /** Records high-priority latencies after the warm-up ends; runs on the looper thread. */
    static final class HighRecorder {
        final Latency latency = new Latency();
        /** t_ns: the send time from the start of the measured span; latency_ns. */
        final Samples samples;
        volatile long measureFromNanos = Long.MAX_VALUE;
        volatile long handledCount;

        HighRecorder(int capacity) {
            samples = new Samples(capacity, "t_ns", "latency_ns");
        }

        void handled(long sentNanos) {
            long now = System.nanoTime();
            if (sentNanos >= measureFromNanos) {
                latency.recordNanos(now - sentNanos);
                samples.add(sentNanos - measureFromNanos, now - sentNanos);
            }
            handledCount++;
        }
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        int[] noiseCounts = o.cases(new int[] {0, 300}, steps(0, 300, 50), steps(0, 300, 10));
        double seconds = o.secondsFor(QUICK_SECONDS, SEED_SECONDS);
        List<Participant> participants = List.of(new RtdroidParticipant(), new ComponentParticipant(), new FifoParticipant());
        // period -> impl -> N -> row
        Map<Long, Map<String, Map<Integer, Report.Row>>> byPeriod = new LinkedHashMap<>();
        for (Participant p : participants) {
            for (int n : noiseCounts) {
                Report.Row row = runCase(o, report, p, n, HIGH_PERIOD_NANOS, seconds);
                byPeriod.computeIfAbsent(HIGH_PERIOD_NANOS, k -> new LinkedHashMap<>())
                        .computeIfAbsent(p.impl(), k -> new LinkedHashMap<>()).put(n, row);
                System.gc();
            }
        }
        if (!o.quick()) {
            for (Participant p : participants) {
                for (int n : new int[] {0, 300}) {
                    Report.Row row = runCase(o, report, p, n, HARD_HIGH_PERIOD_NANOS, seconds);
                    byPeriod.computeIfAbsent(HARD_HIGH_PERIOD_NANOS, k -> new LinkedHashMap<>())
                            .computeIfAbsent(p.impl(), k -> new LinkedHashMap<>()).put(n, row);
                    System.gc();
                }
            }
        }
        int maxN = noiseCounts[noiseCounts.length - 1];
        for (var e : byPeriod.entrySet()) {
            String period = "high every " + e.getKey() / 1_000_000 + " ms";
            Report.Row r0 = e.getValue().get("rtdroid").get(0);
            Report.Row rN = e.getValue().get("rtdroid").get(maxN);
            double ratio = rN.p99Micros() / r0.p99Micros();
            report.goal(period + ": rtdroid p99 at noise_threads=" + maxN + " within 1.2x its p99 at noise_threads=0",
                    String.format("p99 %.1f us at N=%d vs %.1f us at N=0 (%.2fx)", rN.p99Micros(), maxN, r0.p99Micros(), ratio),
                    ratio <= 1.2);
            Report.Row c0 = e.getValue().get(COMPONENT).get(0);
            Report.Row cN = e.getValue().get(COMPONENT).get(maxN);
            double cratio = cN.p99Micros() / c0.p99Micros();
            report.goal(period + ": component (a message channel to a component's thread, what apps use) p99 at noise_threads="
                    + maxN + " within 1.2x its p99 at noise_threads=0",
                    String.format("p99 %.1f us at N=%d vs %.1f us at N=0 (%.2fx)", cN.p99Micros(), maxN, c0.p99Micros(), cratio),
                    cratio <= 1.2);
            Report.Row f0 = e.getValue().get("fifo").get(0);
            Report.Row fN = e.getValue().get("fifo").get(maxN);
            double fratio = fN.p99Micros() / f0.p99Micros();
            report.goal(period + ": fifo (stock Android semantics) p99 degrades at least 10x from noise_threads=0 to " + maxN,
                    String.format("p99 %.1f us at N=%d vs %.1f us at N=0 (%.1fx)", fN.p99Micros(), maxN, f0.p99Micros(), fratio),
                    fratio >= 10);
        }
        report.note("looper threads and the component's thread: "
                + (LOOPER_BASE_PRIORITY > 0 ? "SCHED_FIFO " + LOOPER_BASE_PRIORITY : "SCHED_OTHER")
                + " (rtdroid inherits up to " + HIGH_PRIORITY + "; a component runs at its own priority); high sender SCHED_FIFO " + HIGH_PRIORITY
                + "; noise senders SCHED_OTHER, " + NOISE_WORK_NANOS + " ns of work in each noise message's handler; "
                + seconds + " s measured per case after a warm-up; looper drains its backlog before a case ends (at most "
                + drainNanos(o) / 1_000_000_000L + " s)");
    }

    /** from, from + step, ..., to */
    static int[] steps(int from, int to, int step) {
        int[] a = new int[(to - from) / step + 1];
        for (int i = 0; i < a.length; i++) {
            a[i] = from + i * step;
        }
        return a;
    }

    /** How long a case may drain its backlog: the seed's hard stop in a full run. */
    static long drainNanos(BenchOptions o) {
        return o.quick() ? 1_500_000_000L : o.full() ? SEED_HARD_STOP_NANOS : 60_000_000_000L;
    }

    private Report.Row runCase(BenchOptions o, Report report, Participant p, int noiseThreads, long highPeriodNanos,
                               double seconds) throws Exception {
        long caseNanos = (long) (seconds * 1e9);
        HighRecorder rec = new HighRecorder((int) (caseNanos / highPeriodNanos) + 16);
        try (Watchdog.Phase phase = Watchdog.phase("looper " + p.impl() + " N=" + noiseThreads,
                seconds * 2 + drainNanos(o) / 1e9 + 120)) {
            return runCase(o, report, p, noiseThreads, highPeriodNanos, caseNanos, rec);
        }
    }

    private Report.Row runCase(BenchOptions o, Report report, Participant p, int noiseThreads, long highPeriodNanos,
                               long caseNanos, HighRecorder rec) throws Exception {
        p.start(rec, noiseThreads);
        AtomicLong highSent = new AtomicLong();
        AtomicLong highDropped = new AtomicLong();
        AtomicLong highSkipped = new AtomicLong();
        AtomicLong noiseSent = new AtomicLong();
        AtomicLong noiseDropped = new AtomicLong();
        CountDownLatch warmedUp = new CountDownLatch(1);
        CountDownLatch scheduled = new CountDownLatch(1);
        long[] schedule = new long[3]; // t0, measureFrom, end: published by the scheduled latch

        Thread high = RealtimeThreads.start("bench-high", RealtimePolicy.fifo(HIGH_PRIORITY), () -> {
            // JIT warm-up of the send and handle paths, before the schedule starts (timestamp 0:
            // never recorded).
            for (int i = 0, n = o.quick() ? JIT_WARMUP_MESSAGES_QUICK : JIT_WARMUP_MESSAGES; i < n; i++) {
                while (!p.sendHigh(0)) {
                    Thread.onSpinWait();
                }
                if ((i & 15) == 15) {
                    while (rec.handledCount < i - 8) {
                        Thread.onSpinWait();
                    }
                }
            }
            warmedUp.countDown();
            awaitQuietly(scheduled);
            long measureFrom = schedule[1];
            long end = schedule[2];
            long sent = 0;
            long dropped = 0;
            long skipped = 0;
            for (long next = schedule[0]; next < end; next += highPeriodNanos) {
                Linux.sleepUntilNanos(next);
                long now = System.nanoTime();
                if (p.sendHigh(now)) {
                    if (now >= measureFrom) {
                        sent++;
                    }
                } else {
                    dropped++;
                }
                long after = System.nanoTime();
                while (next + highPeriodNanos < after) { // blocked in send: skip missed periods, no bursts
                    next += highPeriodNanos;
                    skipped++;
                }
            }
            highSent.set(sent);
            highDropped.set(dropped);
            highSkipped.set(skipped);
        });
        warmedUp.await();
        long warmNanos = Math.min(1_000_000_000L, caseNanos / 3);
        long t0 = Linux.monotonicNanos() + 50_000_000L; // let every noise thread start first
        long measureFrom = t0 + warmNanos;
        long end = measureFrom + caseNanos;
        rec.measureFromNanos = measureFrom;
        schedule[0] = t0;
        schedule[1] = measureFrom;
        schedule[2] = end;
        scheduled.countDown();
        List<Thread> noise = new ArrayList<>();
        for (int i = 0; i < noiseThreads; i++) {
            int idx = i;
            long phase = PERIOD_NANOS * i / Math.max(1, noiseThreads);
            noise.add(RealtimeThreads.start("bench-noise-" + i, RealtimePolicy.normal(), () -> {
                long sent = 0;
                long dropped = 0;
                long next = t0 + phase;
                while (next < end) {
                    Linux.sleepUntilNanos(next);
                    for (int k = 0; k < NOISE_BURST; k++) {
                        if (p.sendNoise(idx, System.nanoTime())) {
                            sent++;
                        } else {
                            dropped++;
                        }
                    }
                    next += PERIOD_NANOS;
                    long now = System.nanoTime();
                    if (now - next > PERIOD_NANOS) { // overloaded: skip missed periods instead of bursting
                        next += (now - next) / PERIOD_NANOS * PERIOD_NANOS;
                    }
                }
                noiseSent.addAndGet(sent);
                noiseDropped.addAndGet(dropped);
            }));
        }
        high.join();
        for (Thread t : noise) {
            t.join();
        }
        // Let the looper work off its backlog so late high messages are measured, not lost.
        long drainDeadline = System.nanoTime() + drainNanos(o);
        while (rec.latency.histogram().getTotalCount() < highSent.get() && System.nanoTime() < drainDeadline) {
            Thread.sleep(5);
        }
        p.stop();
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("high_period_ms", highPeriodNanos / 1_000_000);
        cases.put("noise_threads", noiseThreads);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("high_sent", highSent.get());
        extra.put("high_dropped", highDropped.get());
        extra.put("high_skipped_periods", highSkipped.get());
        extra.put("noise_sent", noiseSent.get());
        extra.put("noise_dropped", noiseDropped.get());
        if (rec.latency.histogram().getTotalCount() < highSent.get()) {
            extra.put("undelivered", highSent.get() - rec.latency.histogram().getTotalCount());
        }
        return report.row(p.impl(), cases, rec.latency.histogram(), extra, rec.samples);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- participants

    /** RTDroid: RT looper with per-priority queues and inheritance; one bounded handler per sender. */
    static final class RtdroidParticipant implements Participant {
        private RtHandlerThread thread;
        private RtHandler high;
        private RtHandler[] noise;
        private long sink;

        @Override
        public String impl() {
            return "rtdroid";
        }

        @Override
        public void start(HighRecorder rec, int noiseThreads) {
            thread = new RtHandlerThread("rt-looper", LOOPER_BASE_PRIORITY, MessagePolicy.INHERITANCE);
            thread.start();
            RtLooper looper = thread.getLooper();
            high = new RtHandler(looper, "high", 16, 1, 0, m -> rec.handled(m.data[0]));
            noise = new RtHandler[noiseThreads];
            for (int i = 0; i < noiseThreads; i++) {
                noise[i] = new RtHandler(looper, "noise-" + i, 4 * NOISE_BURST, 1, 0, m -> sink += noiseWork(m.data[0]));
            }
        }

        @Override
        public boolean sendHigh(long ts) {
            return send(high, WHAT_HIGH, ts);
        }

        @Override
        public boolean sendNoise(int thread, long ts) {
            return send(noise[thread], WHAT_NOISE, ts);
        }

        private static boolean send(RtHandler h, int what, long ts) {
            RtMessage m = h.tryObtainMessage();
            if (m == null) {
                return false;
            }
            m.what = what;
            m.data[0] = ts;
            return h.sendMessage(m);
        }

        @Override
        public void stop() throws InterruptedException {
            thread.quit();
            thread.join(10_000);
        }
    }

    static final String COMPONENT = "component";

    /**
     * What RT applications use, since their components run on channels, not on the looper
     * (docs/rtdroid-runtime.md, "Why components do not run on the RT Looper"): a real-time message
     * channel (rt-msg, priority&amp;oldest, one pool of the largest capacity a manifest may declare)
     * queued by sender priority, and one consuming thread that takes it as a component's thread
     * does ({@code deliverOne} until empty, then park until a sender wakes it) at the component's
     * own priority ({@code execution component-priority}: no inheritance), here the loopers' base
     * priority. The senders are the channel's endpoints at their own priorities (noise: 0).
     */
    static final class ComponentParticipant implements Participant {
        private MessageChannel channel;
        private ChannelSender high;
        private ChannelSender[] noise;
        private Stamp highStamp;
        private Stamp[] noiseStamps;
        private Thread thread;
        private volatile boolean running;
        private long sink;

        /** One sender's closure: its send time and kind into the pre-allocated message (no allocation per send). */
        static final class Stamp implements MessageClosure {
            final int what;
            long ts;

            Stamp(int what) { this.what = what; }

            @Override
            public void genMsg(RealtimeIntent m) {
                m.what = what;
                m.putLong(0, ts);
            }
        }

        @Override
        public String impl() {
            return COMPONENT;
        }

        @Override
        public void start(HighRecorder rec, int noiseThreads) {
            String name = "looper.bench";
            int capacity = Math.min(ManifestParser.MAX_CHANNEL_CAPACITY, 16 + 4 * NOISE_BURST * noiseThreads);
            channel = new MessageChannel(name, capacity, 8, DropPolicy.PRIORITY_OLDEST, false);
            high = new ChannelSender(name, "high", HIGH_PRIORITY, false);
            highStamp = new Stamp(WHAT_HIGH);
            noise = new ChannelSender[noiseThreads];
            noiseStamps = new Stamp[noiseThreads];
            for (int i = 0; i < noiseThreads; i++) {
                noise[i] = new ChannelSender(name, "noise-" + i, 0, false);
                noiseStamps[i] = new Stamp(WHAT_NOISE);
            }
            IntentConsumer consumer = m -> {
                if (m.what == WHAT_HIGH) {
                    rec.handled(m.getLong(0));
                } else {
                    sink += noiseWork(m.getLong(0));
                }
            };
            running = true;
            thread = RealtimeThreads.newThread("component", RealtimePolicy.fifo(LOOPER_BASE_PRIORITY), null, () -> {
                while (running) {
                    if (!channel.deliverOne(consumer)) {
                        LockSupport.park(this);
                    }
                }
            });
            thread.setDaemon(true);
            channel.setConsumerThread(thread);
            thread.start();
        }

        @Override
        public boolean sendHigh(long ts) {
            highStamp.ts = ts;
            return channel.send(high, highStamp) == ChannelSender.SENT;
        }

        @Override
        public boolean sendNoise(int thread, long ts) {
            noiseStamps[thread].ts = ts;
            return channel.send(noise[thread], noiseStamps[thread]) == ChannelSender.SENT;
        }

        @Override
        public void stop() throws InterruptedException {
            running = false;
            LockSupport.unpark(thread);
            thread.join(10_000);
        }
    }

    /** Stock Android semantics: one FIFO, time-ordered queue shared by every sender. */
    static final class FifoParticipant implements Participant {
        private Thread thread;
        private volatile Looper looper;
        private Handler handler;
        private long sink;

        @Override
        public String impl() {
            return "fifo";
        }

        @Override
        public void start(HighRecorder rec, int noiseThreads) throws InterruptedException {
            java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
            thread = RealtimeThreads.start("fifo-looper", RealtimePolicy.fifo(LOOPER_BASE_PRIORITY), () -> {
                Looper.prepare();
                looper = Looper.myLooper();
                ready.countDown();
                Looper.loop();
            });
            ready.await();
            handler = new Handler(looper, m -> {
                if (m.what == WHAT_HIGH) {
                    rec.handled(m.data[0]);
                } else {
                    sink += noiseWork(m.data[0]);
                }
                return true;
            });
        }

        @Override
        public boolean sendHigh(long ts) {
            return send(WHAT_HIGH, ts);
        }

        @Override
        public boolean sendNoise(int thread, long ts) {
            return send(WHAT_NOISE, ts);
        }

        private boolean send(int what, long ts) {
            Message m = handler.obtainMessage(what);
            m.data[0] = ts;
            return handler.sendMessage(m);
        }

        @Override
        public void stop() throws InterruptedException {
            looper.quit();
            thread.join(10_000);
        }
    }
}
