package org.rtdroid.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.channel.BroadcastChannel;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.memory.TransferScope;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The dissertation's channel micro-benchmarks (4.5.1, Figs. 4.17 and 4.18): a real-time sender
 * (SCHED_FIFO 80) sends one message every 100 ms to a real-time receiver (SCHED_FIFO 70), both on
 * the bench CPU, over the runtime's message channel, its intent broadcast channel (one subscriber)
 * or its bulk channel; every event is kept with its breakdown:
 * <ul>
 *   <li>{@code alloc_ns}: the sender's call until its closure runs, i.e. until the channel has
 *       handed it a pre-allocated message (or transfer scope): the message allocation;</li>
 *   <li>{@code passing_ns}: from there until the send returns (filled, queued, receiver woken):
 *       the message passing;</li>
 *   <li>{@code switch_ns}: from the send's return until the receiver's callback starts: the
 *       context switch to the receiver;</li>
 *   <li>{@code callback_ns}: from the receiver thread's return from its wait until its callback
 *       starts (the seed's "callback trigger latency" of the intent channel).</li>
 * </ul>
 * The row's latency is the whole: the send call to the callback. Cases: {@code noise} {@code none},
 * and the seed's 30 lowest-priority noise threads (SCHED_OTHER, on the bench CPU) of one kind:
 * {@code heap} (a 512 KB array allocated every 200 ms), {@code pi} (pi computed every 200 ms, by
 * {@value #PI_TERMS} terms of Leibniz's series) or {@code message} (a low-priority message sent on
 * the same channel every 200 ms); bulk: payloads {@code 64 B .. 4 MiB}, no noise (the seed's Fig.
 * 4.18c: "instead of stressing the system with noise-making threads, we increase the size of data
 * payloads"). 2,000 events per case with {@code --full} (the seed's Fig. 4.17), else as many as
 * --seconds allow; each case first warms the JIT with unmeasured sends.
 */
final class ChannelEventsBench implements Benchmark {
    static final long PERIOD_NANOS = 100_000_000L;
    static final int SENDER_PRIORITY = 80;
    static final int RECEIVER_PRIORITY = 70;
    static final int NOISE_SENDER_PRIORITY = 1;
    static final int NOISE_THREADS = 30;
    static final long NOISE_PERIOD_NANOS = 200_000_000L;
    static final int HEAP_NOISE_BYTES = 512 * 1024;
    static final int PI_TERMS = 1_000_000;
    static final int MESSAGE_BYTES = 64;
    /** Room for the high message beside every noise sender's one. */
    static final int CAPACITY = NOISE_THREADS + 10;
    static final int BULK_CAPACITY = 4;
    static final int FULL_EVENTS = 2_000;
    /** The quick form's case: 3 events. */
    static final double QUICK_SECONDS = 0.3;
    static final int WARMUP_SENDS = 3_000;
    static final String[] NOISE = {"none", "heap", "pi", "message"};
    static final int[] BULK_SIZES = {64, 4096, 65536, 1 << 20, 4 << 20};
    static final long NOT_MEASURED = -1;
    static final long NOISE_MESSAGE = -2;

    @Override
    public String name() {
        return "channel-events";
    }

    @Override
    public String description() {
        return "Figs. 4.17/4.18: message, intent and bulk channel events every 100 ms, broken down, under the seed's noise";
    }

    /** One channel under test: the sender's send and the receiver's loop. */
    interface Channel {
        /** Sends event {@code seq} ({@link #NOT_MEASURED} in warm-up); stamps probe.t1 when the slot is granted. */
        boolean send(ChannelSender sender, long seq);

        /** A noise message (message noise), sent by any noise thread: a closure of its own, no shared state. */
        boolean sendNoise(ChannelSender sender);

        /** The receiver's loop body: delivers one if any; @return false if nothing was queued. */
        boolean deliverOne();

        void setConsumerThread(Thread t);

        void close();
    }

    /** Timestamps of the one measured event in flight (sender writes t0..t2, receiver tw and t3). */
    static final class Probe {
        volatile long t1;
        volatile long tw;
        volatile long t3;
        volatile long delivered = -1; // seq of the last measured event the receiver saw
        volatile long noiseDelivered;
        long wake; // receiver only: when it came back from its wait

        void received(long seq) {
            long now = System.nanoTime();
            if (seq >= 0) {
                tw = wake;
                t3 = now;
                delivered = seq;
            } else if (seq == NOISE_MESSAGE) {
                noiseDelivered++;
            } else {
                delivered = Long.MIN_VALUE; // a warm-up event
            }
        }
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        CpuSet cpu = o.cpuSet();
        int events = o.full() && !o.secondsGiven() ? FULL_EVENTS
                : (int) Math.max(3, o.secondsFor(QUICK_SECONDS, 0) * 1e9 / PERIOD_NANOS);
        List<Object[]> cases = new ArrayList<>();
        for (String kind : new String[] {"message", "intent"}) {
            for (String noise : NOISE) {
                cases.add(new Object[] {kind, noise, MESSAGE_BYTES});
            }
        }
        for (int size : BULK_SIZES) {
            cases.add(new Object[] {"bulk", "none", size});
        }
        Map<String, Report.Row> rows = new LinkedHashMap<>();
        for (Object[] c : cases) {
            String kind = (String) c[0];
            String noise = (String) c[1];
            int size = (Integer) c[2];
            try (Watchdog.Phase phase = Watchdog.phase("channel-events " + kind + " " + noise + " " + size,
                    events * PERIOD_NANOS / 1e9 * 2 + 120)) {
                rows.put(kind + "/" + noise + "/" + size, runCase(report, cpu, kind, noise, size, events));
            }
            System.gc();
        }
        for (String kind : new String[] {"message", "intent"}) {
            Report.Row base = rows.get(kind + "/none/" + MESSAGE_BYTES);
            for (String noise : NOISE) {
                if (!noise.equals("none")) {
                    Report.Row r = rows.get(kind + "/" + noise + "/" + MESSAGE_BYTES);
                    report.note(String.format(Locale.ROOT, "%s channel, %s noise: p99 %.1f us vs %.1f us unloaded (%.2fx)",
                            kind, noise, r.p99Micros(), base.p99Micros(), r.p99Micros() / base.p99Micros()));
                }
            }
        }
        Report.Row small = rows.get("bulk/none/" + BULK_SIZES[0]);
        Report.Row large = rows.get("bulk/none/" + BULK_SIZES[BULK_SIZES.length - 1]);
        report.note(String.format(Locale.ROOT, "bulk: p50 %.1f us at %d B vs %.1f us at %d B (%.2fx): zero copy",
                large.p50Micros(), BULK_SIZES[BULK_SIZES.length - 1], small.p50Micros(), BULK_SIZES[0],
                large.p50Micros() / small.p50Micros()));
        report.note("sender SCHED_FIFO " + SENDER_PRIORITY + " every " + PERIOD_NANOS / 1_000_000 + " ms, receiver SCHED_FIFO "
                + RECEIVER_PRIORITY + ", both on CPU " + o.cpu() + "; noise: " + NOISE_THREADS + " SCHED_OTHER threads on that CPU,"
                + " each every " + NOISE_PERIOD_NANOS / 1_000_000 + " ms: heap = a " + HEAP_NOISE_BYTES / 1024 + " KB array,"
                + " pi = " + PI_TERMS + " terms of Leibniz's series, message = one message at sender priority "
                + NOISE_SENDER_PRIORITY + " on the measured channel; " + events + " events per case after "
                + WARMUP_SENDS + " unmeasured sends");
        report.note("samples: alloc_ns = send call to the closure (slot granted), passing_ns = closure to the send's return,"
                + " switch_ns = the send's return to the receiver's callback, callback_ns = the receiver's wake-up to its"
                + " callback; the row's latency = alloc + passing + switch");
    }

    private Report.Row runCase(Report report, CpuSet cpu, String kind, String noise, int size, int events) throws Exception {
        Probe probe = new Probe();
        Channel channel = switch (kind) {
            case "message" -> new Message(probe, size);
            case "intent" -> new Intent(probe, size);
            default -> new Bulk(probe, size);
        };
        AtomicBoolean running = new AtomicBoolean(true);
        Thread receiver = RealtimeThreads.newThread("bench-ch-rx", new RealtimePolicy(RECEIVER_PRIORITY, cpu, 1), null, () -> {
            while (running.get()) {
                probe.wake = System.nanoTime();
                if (!channel.deliverOne()) {
                    LockSupport.park(this);
                }
            }
        });
        receiver.setDaemon(true);
        channel.setConsumerThread(receiver);
        receiver.start();
        List<Thread> noiseThreads = startNoise(noise, cpu, running, channel);
        Latency latency = new Latency();
        Samples samples = new Samples(events, "t_ns", "alloc_ns", "passing_ns", "switch_ns", "callback_ns");
        long[] counts = new long[3]; // sent, dropped, undelivered
        Thread sender = RealtimeThreads.start("bench-ch-tx", new RealtimePolicy(SENDER_PRIORITY, cpu, 1), () -> {
            ChannelSender s = new ChannelSender("bench-" + kind, "bench-sender", SENDER_PRIORITY, false);
            for (int i = 0; i < WARMUP_SENDS; i++) {
                probe.delivered = -1;
                channel.send(s, NOT_MEASURED);
                awaitDelivery(probe, Long.MIN_VALUE, 20_000_000L);
            }
            long start = Linux.monotonicNanos() + PERIOD_NANOS;
            long next = start;
            for (long seq = 0; seq < events; seq++, next += PERIOD_NANOS) {
                Linux.sleepUntilNanos(next);
                long t0 = System.nanoTime();
                boolean sent = channel.send(s, seq);
                long t2 = System.nanoTime();
                if (!sent) {
                    counts[1]++;
                    continue;
                }
                counts[0]++;
                if (!awaitDelivery(probe, seq, PERIOD_NANOS / 2)) {
                    counts[2]++;
                    continue;
                }
                long t1 = probe.t1;
                long t3 = probe.t3;
                latency.recordNanos(t3 - t0);
                samples.add(t0 - start, t1 - t0, t2 - t1, t3 - t2, t3 - probe.tw);
            }
        });
        sender.join();
        running.set(false);
        LockSupport.unpark(receiver);
        receiver.join(5_000);
        long noiseRounds = 0;
        for (Thread t : noiseThreads) {
            t.join(10_000);
        }
        if (noise.equals("message")) {
            noiseRounds = probe.noiseDelivered;
        }
        channel.close();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("channel", kind);
        c.put("noise", noise);
        c.put("payload_bytes", size);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("sent", counts[0]);
        extra.put("dropped", counts[1]);
        extra.put("undelivered", counts[2]);
        extra.put("alloc_p50_us", p50(samples, 1));
        extra.put("passing_p50_us", p50(samples, 2));
        extra.put("switch_p50_us", p50(samples, 3));
        extra.put("callback_p50_us", p50(samples, 4));
        if (noise.equals("message")) {
            extra.put("noise_messages_delivered", noiseRounds);
        }
        return report.row("rtdroid", c, latency.histogram(), extra, samples);
    }

    /** Parks the sender until the receiver saw {@code seq}; @return false if it did not within the bound. */
    private static boolean awaitDelivery(Probe probe, long seq, long boundNanos) {
        long giveUp = System.nanoTime() + boundNanos;
        while (probe.delivered != seq) {
            if (System.nanoTime() > giveUp) {
                return false;
            }
            LockSupport.parkNanos(20_000);
        }
        return true;
    }

    private static double p50(Samples s, int column) {
        if (s.count() == 0) {
            return Double.NaN;
        }
        long[] v = new long[s.count()];
        for (int i = 0; i < v.length; i++) {
            v[i] = s.get(i, column);
        }
        java.util.Arrays.sort(v);
        return Math.round(v[v.length / 2] / 10.0) / 100.0;
    }

    // ---------------------------------------------------------------- noise

    static volatile Object heapSink;
    static volatile double piSink;

    static double pi(int terms) {
        double sum = 0;
        for (int k = 0; k < terms; k++) {
            sum += ((k & 1) == 0 ? 1.0 : -1.0) / (2 * k + 1);
        }
        return 4 * sum;
    }

    private static List<Thread> startNoise(String noise, CpuSet cpu, AtomicBoolean running, Channel channel) {
        List<Thread> threads = new ArrayList<>();
        if (noise.equals("none")) {
            return threads;
        }
        long start = Linux.monotonicNanos();
        for (int i = 0; i < NOISE_THREADS; i++) {
            long phase = NOISE_PERIOD_NANOS * i / NOISE_THREADS;
            int idx = i;
            threads.add(RealtimeThreads.start("bench-noise-" + noise + "-" + i, new RealtimePolicy(0, cpu, 0), () -> {
                ChannelSender s = new ChannelSender("bench-noise", "bench-noise-" + idx, NOISE_SENDER_PRIORITY, false);
                for (long next = start + phase; running.get(); next += NOISE_PERIOD_NANOS) {
                    Linux.sleepUntilNanos(next);
                    switch (noise) {
                        case "heap" -> {
                            byte[] a = new byte[HEAP_NOISE_BYTES];
                            a[a.length - 1] = 1;
                            heapSink = a;
                        }
                        case "pi" -> piSink = pi(PI_TERMS);
                        default -> channel.sendNoise(s);
                    }
                    long now = Linux.monotonicNanos();
                    if (now - next > NOISE_PERIOD_NANOS) {
                        next = now - NOISE_PERIOD_NANOS; // overran: no catching up
                    }
                }
            }));
        }
        return threads;
    }

    // ---------------------------------------------------------------- channels

    /** A message whose payload carries the event's sequence number at offset 0. */
    abstract static class Stamped {
        final Probe probe;
        final byte[] source;
        long seq;
        final MessageClosure fill;
        final MessageClosure noiseFill = m -> {
            m.setPayloadLength(8);
            m.putLong(0, NOISE_MESSAGE);
        };
        final IntentConsumer consumer;

        Stamped(Probe probe, int size) {
            this.probe = probe;
            this.source = new byte[size];
            fill = m -> {
                if (seq >= 0) {
                    probe.t1 = System.nanoTime();
                }
                m.setPayload(source, 0, source.length);
                m.putLong(0, seq);
            };
            consumer = (RealtimeIntent in) -> probe.received(in.getLong(0));
        }
    }

    static final class Message extends Stamped implements Channel {
        private final MessageChannel channel;

        Message(Probe probe, int size) {
            super(probe, size);
            channel = new MessageChannel("bench-message", CAPACITY, size, DropPolicy.PRIORITY_OLDEST, false);
        }

        @Override
        public boolean send(ChannelSender sender, long s) {
            seq = s;
            return channel.send(sender, fill) == ChannelSender.SENT;
        }

        @Override
        public boolean sendNoise(ChannelSender sender) {
            return channel.send(sender, noiseFill) == ChannelSender.SENT;
        }

        @Override public boolean deliverOne() { return channel.deliverOne(consumer); }
        @Override public void setConsumerThread(Thread t) { channel.setConsumerThread(t); }
        @Override public void close() {}
    }

    static final class Intent extends Stamped implements Channel {
        private final BroadcastChannel channel;
        private final org.rtdroid.runtime.channel.InboundSource subscriber;

        Intent(Probe probe, int size) {
            super(probe, size);
            channel = new BroadcastChannel("bench-intent", CAPACITY, size, 1, DropPolicy.PRIORITY_OLDEST, false);
            subscriber = channel.subscriber(0);
        }

        @Override
        public boolean send(ChannelSender sender, long s) {
            seq = s;
            return channel.broadcast(sender, fill) == ChannelSender.SENT;
        }

        @Override
        public boolean sendNoise(ChannelSender sender) {
            return channel.broadcast(sender, noiseFill) == ChannelSender.SENT;
        }

        @Override public boolean deliverOne() { return subscriber.deliverOne(consumer); }
        @Override public void setConsumerThread(Thread t) { subscriber.setConsumerThread(t); }
        @Override public void close() {}
    }

    /** Bulk: the payload is produced in place in the transfer scope; its sequence number at offset 0, its size at the end. */
    static final class Bulk implements Channel {
        private final Probe probe;
        private final int size;
        private final Arena arena = Arena.ofShared();
        private final BulkChannel channel;
        private long seq;
        private final org.rtdroid.runtime.channel.BulkClosure fill;
        private final org.rtdroid.runtime.channel.BulkHandler handler;

        Bulk(Probe probe, int size) {
            this.probe = probe;
            this.size = size;
            MemorySegment region = arena.allocate((long) BULK_CAPACITY * size, 64);
            channel = new BulkChannel("bench-bulk", BULK_CAPACITY, size, DropPolicy.OLDEST, region);
            fill = scope -> {
                if (seq >= 0) {
                    probe.t1 = System.nanoTime();
                }
                long base = scope.allocate(size);
                scope.putLong(base + size - 8, size);
                scope.putLong(base, seq);
            };
            handler = (TransferScope scope) -> {
                if (scope.getLong(size - 8) == size) {
                    probe.received(scope.getLong(0));
                }
            };
        }

        @Override
        public boolean send(ChannelSender sender, long s) {
            seq = s;
            return channel.send(sender, fill) == ChannelSender.SENT;
        }

        @Override
        public boolean sendNoise(ChannelSender sender) {
            throw new UnsupportedOperationException("the bulk cases run without noise");
        }

        @Override public boolean deliverOne() { return channel.receive(handler); }
        @Override public void setConsumerThread(Thread t) { channel.setConsumerThread(t); }
        @Override public void close() { arena.close(); }
    }
}
