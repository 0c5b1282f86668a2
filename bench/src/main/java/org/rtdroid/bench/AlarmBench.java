package org.rtdroid.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.alarm.PendingIntent;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The dissertation's Fig. 3.13 experiment (3.8.2): every round, one high-priority alarm and N
 * low-priority alarms are due at the same instant T, 40 ms after the round starts, N from 5 to 100
 * by 10 ({@code --full}: 0, 5, 10, 20, ..., 100; by default 0, 10, 50, 100; quick 0, 100); we measure the high alarm's delivery latency (T to the
 * start of its receiver's callback) and its fire latency (T to the moment the alarm thread took it
 * out of the queue).
 *
 * <p>Participants: {@code rtdroid} ({@link AlarmManager}: at one instant the higher sender
 * priority fires first; each receiver's callback runs at the receiver's priority, strategy
 * {@code bound} or {@code pooled} with a pool of {@value #POOL_THREADS} threads, "to induce queueing in the thread pool") and {@code fifo} ({@link FifoAlarmQueue},
 * strategy {@code serial}: Android's order, registration order at one instant, every receiver run
 * by the one alarm thread). The setter registers the N low alarms first and the high one last,
 * at an instant {@link #LEAD_NANOS} ahead; a round in which any set was discarded (its instant
 * passed while registering) is cancelled and counted in {@code skipped_rounds}, not measured.
 * Each low callback does {@link #LOW_WORK_NANOS} of busy work. Every thread is pinned to the
 * bench CPU, SCHED_FIFO: alarm thread {@value #ALARM_PRIORITY} (rtdroid's; fifo's one thread runs
 * at the same priority), high receiver {@value #HIGH_PRIORITY}, setter {@value #SETTER_PRIORITY},
 * low receivers {@value #LOW_PRIORITY}.
 */
final class AlarmBench implements Benchmark {
    /** A round every 50 ms: the 40 ms lead and the round's delivery fit in it. */
    static final long PERIOD_NANOS = 50_000_000L;
    /** 3.8.2: "a single high-priority alarm at the current system time + 40 ms". */
    static final long LEAD_NANOS = 40_000_000L;
    /** 3.8.2: "only 3 worker threads are allocated for the thread pool". */
    static final int POOL_THREADS = 3;
    /** A full case: 600 rounds. */
    static final double FULL_SECONDS = 30;
    /** The quick form's case: 8 rounds. */
    static final double QUICK_SECONDS = 0.4;
    static final long LOW_WORK_NANOS = 20_000L;
    static final int ALARM_PRIORITY = 90;
    static final int HIGH_PRIORITY = 80;
    static final int SETTER_PRIORITY = 70;
    static final int LOW_PRIORITY = 10;
    static final int HIGH_WHAT = -1;
    static final long GIVE_UP_NANOS = 5_000_000_000L;

    @Override
    public String name() {
        return "alarm";
    }

    @Override
    public String description() {
        return "Fig. 3.13: latency of a high-priority alarm among N low-priority alarms due at the same instant";
    }

    /** Receives alarms; high: records latencies after warm-up; low: busy work. One thread calls it at a time. */
    static final class Sink {
        final boolean high;
        final Latency delivery = new Latency();
        final Latency fire = new Latency();
        /** The high alarm's: t_ns (its instant, from the first measured one), delivery_ns, fire_ns. */
        final Samples samples;
        long firstTrigger = -1;
        volatile boolean measuring;
        volatile long received;
        long sink;

        Sink(boolean high, int capacity) {
            this.high = high;
            this.samples = new Samples(high ? capacity : 1, "t_ns", "delivery_ns", "fire_ns");
        }

        void received(long triggerNanos, long firedNanos) {
            long now = Linux.monotonicNanos();
            if (high) {
                if (measuring) {
                    delivery.recordNanos(now - triggerNanos);
                    fire.recordNanos(firedNanos - triggerNanos);
                    if (firstTrigger < 0) {
                        firstTrigger = triggerNanos;
                    }
                    samples.add(triggerNanos - firstTrigger, now - triggerNanos, firedNanos - triggerNanos);
                }
            } else {
                long end = now + LOW_WORK_NANOS;
                while (Linux.monotonicNanos() < end) {
                    sink++;
                }
            }
            received = received + 1;
        }
    }

    /** One implementation under test. */
    interface Participant {
        String impl();

        String strategy();

        void start(int lows, Sink high, Sink low, IntFunction<RealtimePolicy> policyFor);

        /** Sets the lows (first) and the high alarm (last) at {@code t}; @return false if any was discarded */
        boolean setRound(long t);

        void cancelRound();

        /** Releases that found every pool thread busy (0 where there is no pool). */
        long saturatedReleases();

        void stop() throws InterruptedException;
    }

    static final class RtdroidParticipant implements Participant {
        private final HandlerStrategy strategy;
        private AlarmManager am;
        private PendingIntent[] lowIntents;
        private PendingIntent highIntent;

        RtdroidParticipant(HandlerStrategy strategy) {
            this.strategy = strategy;
        }

        @Override public String impl() { return "rtdroid"; }

        @Override public String strategy() { return strategy.manifestName(); }

        @Override
        public void start(int lows, Sink high, Sink low, IntFunction<RealtimePolicy> policyFor) {
            am = new AlarmManager("bench", lows + 1, strategy, POOL_THREADS, ALARM_PRIORITY, policyFor);
            am.declareReceiver("High", HIGH_PRIORITY,
                    in -> high.received(in.getLong(AlarmManager.TRIGGER_NANOS_OFFSET), in.getLong(AlarmManager.FIRE_NANOS_OFFSET)));
            am.declareReceiver("Low", LOW_PRIORITY,
                    in -> low.received(in.getLong(AlarmManager.TRIGGER_NANOS_OFFSET), in.getLong(AlarmManager.FIRE_NANOS_OFFSET)));
            lowIntents = new PendingIntent[lows];
            for (int i = 0; i < lows; i++) {
                lowIntents[i] = am.getBroadcast("Low", i, LOW_PRIORITY);
            }
            highIntent = am.getBroadcast("High", HIGH_WHAT, HIGH_PRIORITY);
            am.start();
        }

        @Override
        public boolean setRound(long t) {
            boolean all = true;
            for (PendingIntent p : lowIntents) {
                all &= am.setExact(t, p);
            }
            return am.setExact(t, highIntent) & all;
        }

        @Override
        public void cancelRound() {
            for (PendingIntent p : lowIntents) {
                am.cancel(p);
            }
            am.cancel(highIntent);
        }

        @Override
        public long saturatedReleases() {
            return am.dispatcher().saturatedReleases();
        }

        @Override
        public void stop() throws InterruptedException {
            am.stop();
        }
    }

    static final class FifoParticipant implements Participant {
        private FifoAlarmQueue queue;
        private FifoAlarmQueue.Alarm[] lowAlarms;
        private FifoAlarmQueue.Alarm highAlarm;
        private Thread thread;

        @Override public String impl() { return "fifo"; }

        @Override public String strategy() { return "serial"; }

        @Override
        public void start(int lows, Sink high, Sink low, IntFunction<RealtimePolicy> policyFor) {
            queue = new FifoAlarmQueue(lows + 1);
            lowAlarms = new FifoAlarmQueue.Alarm[lows];
            for (int i = 0; i < lows; i++) {
                lowAlarms[i] = new FifoAlarmQueue.Alarm(i, (what, trigger, fired) -> low.received(trigger, fired));
            }
            highAlarm = new FifoAlarmQueue.Alarm(HIGH_WHAT, (what, trigger, fired) -> high.received(trigger, fired));
            thread = RealtimeThreads.start("bench-fifo-alarms", policyFor.apply(ALARM_PRIORITY), queue::loop);
        }

        @Override
        public boolean setRound(long t) {
            boolean all = true;
            for (FifoAlarmQueue.Alarm a : lowAlarms) {
                all &= queue.set(t, a);
            }
            return queue.set(t, highAlarm) & all;
        }

        @Override
        public void cancelRound() {
            for (FifoAlarmQueue.Alarm a : lowAlarms) {
                queue.cancel(a);
            }
            queue.cancel(highAlarm);
        }

        @Override
        public long saturatedReleases() {
            return 0;
        }

        @Override
        public void stop() throws InterruptedException {
            queue.stop();
            thread.join(2_000);
        }
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        int[] lowCounts = o.cases(new int[] {0, 100}, new int[] {0, 10, 50, 100},
                new int[] {0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
        double seconds = o.secondsFor(QUICK_SECONDS, FULL_SECONDS);
        CpuSet cpu = o.cpuSet();
        IntFunction<RealtimePolicy> policyFor = p -> RealtimePolicy.fifo(p).withCpus(cpu);
        Map<String, Map<Integer, Report.Row>> byParticipant = new LinkedHashMap<>();
        List<Supplier<Participant>> participants = List.of(() -> new RtdroidParticipant(HandlerStrategy.BOUND),
                () -> new RtdroidParticipant(HandlerStrategy.POOLED), FifoParticipant::new);
        for (int n : lowCounts) {
            for (Supplier<Participant> make : participants) {
                Participant p = make.get(); // a fresh manager or queue per case
                Report.Row row;
                try (Watchdog.Phase phase = Watchdog.phase("alarm " + p.impl() + "/" + p.strategy() + " N=" + n,
                        seconds * 3 + 60)) {
                    row = runCase(o, report, p, n, policyFor, seconds);
                }
                byParticipant.computeIfAbsent(p.impl() + "/" + p.strategy(), k -> new LinkedHashMap<>()).put(n, row);
                System.gc();
            }
        }
        int maxN = lowCounts[lowCounts.length - 1];
        for (String strategy : List.of("bound", "pooled")) {
            Report.Row r0 = byParticipant.get("rtdroid/" + strategy).get(0);
            Report.Row rN = byParticipant.get("rtdroid/" + strategy).get(maxN);
            double ratio = rN.p99Micros() / r0.p99Micros();
            report.goal("rtdroid " + strategy + ": high alarm p99 at N=" + maxN + " within 1.5x its p99 at N=0",
                    String.format(java.util.Locale.ROOT, "%.1f us vs %.1f us (%.2fx)", rN.p99Micros(), r0.p99Micros(), ratio),
                    ratio <= 1.5);
        }
        Report.Row fifoN = byParticipant.get("fifo/serial").get(maxN);
        for (String strategy : List.of("bound", "pooled")) {
            Report.Row rN = byParticipant.get("rtdroid/" + strategy).get(maxN);
            double ratio = fifoN.p99Micros() / rN.p99Micros();
            report.goal("fifo's high alarm p99 at N=" + maxN + " at least 10x rtdroid " + strategy + "'s",
                    String.format(java.util.Locale.ROOT, "%.1f us vs %.1f us (%.1fx)", fifoN.p99Micros(), rN.p99Micros(), ratio),
                    ratio >= 10);
        }
        report.note("one round every " + PERIOD_NANOS / 1_000_000 + " ms: N low alarms then the high one set for an instant "
                + LEAD_NANOS / 1_000_000 + " ms ahead; each low callback works " + LOW_WORK_NANOS / 1000
                + " us; pooled: " + POOL_THREADS + " pool threads; all threads SCHED_FIFO on CPU " + o.cpu() + " (alarm " + ALARM_PRIORITY + ", high receiver "
                + HIGH_PRIORITY + ", setter " + SETTER_PRIORITY + ", low receivers " + LOW_PRIORITY + ")");
        report.note("p50/p99 = the high alarm's delivery latency (trigger instant to its callback); fire_p50_us/fire_p99_us ="
                + " trigger instant to the alarm thread taking it out of the queue");
    }

    private Report.Row runCase(BenchOptions o, Report report, Participant p, int lows,
                               IntFunction<RealtimePolicy> policyFor, double seconds) throws Exception {
        long rounds = Math.max(1, (long) (seconds * 1e9) / PERIOD_NANOS);
        Sink high = new Sink(true, (int) rounds + 16);
        Sink low = new Sink(false, 1);
        p.start(lows, high, low, policyFor);
        long warmup = o.quick() ? 5 : o.full() ? 100 : 40;
        long[] result = new long[3]; // measured, skipped, undelivered
        Thread setter = RealtimeThreads.start("bench-alarm-setter", policyFor.apply(SETTER_PRIORITY), () -> {
            long next = Linux.monotonicNanos() + PERIOD_NANOS;
            for (long r = 0; r < warmup + rounds; r++, next += PERIOD_NANOS) {
                Linux.sleepUntilNanos(next);
                high.measuring = r >= warmup;
                long highBefore = high.received;
                long lowBefore = low.received;
                if (!p.setRound(Linux.monotonicNanos() + LEAD_NANOS)) {
                    p.cancelRound();
                    if (r >= warmup) {
                        result[1]++;
                    }
                    continue;
                }
                long giveUp = System.nanoTime() + GIVE_UP_NANOS;
                while ((high.received == highBefore || low.received < lowBefore + lows) && System.nanoTime() < giveUp) {
                    LockSupport.parkNanos(50_000);
                }
                if (high.received == highBefore || low.received < lowBefore + lows) {
                    result[2]++;
                }
                if (r >= warmup) {
                    result[0]++;
                }
                // A round that overran its period starts the next one from now, not in a burst.
                next = Math.max(next, Linux.monotonicNanos() - PERIOD_NANOS / 2);
            }
        });
        setter.join();
        p.stop();
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("strategy", p.strategy());
        cases.put("low_alarms", lows);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("fire_p50_us", micros(fire(high, 50)));
        extra.put("fire_p99_us", micros(fire(high, 99)));
        extra.put("rounds", result[0]);
        extra.put("skipped_rounds", result[1]);
        extra.put("undelivered_rounds", result[2]);
        extra.put("low_delivered", low.received);
        extra.put("saturated_releases", p.saturatedReleases());
        return report.row(p.impl(), cases, high.delivery.histogram(), extra, high.samples);
    }

    private static long fire(Sink s, double percentile) {
        return s.fire.histogram().getTotalCount() == 0 ? 0 : s.fire.histogram().getValueAtPercentile(percentile);
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 10.0) / 100.0;
    }
}
