package org.rtdroid.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.channel.BroadcastChannel;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.InboundSource;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.memory.TransferScope;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * Send-to-receive latency of the runtime's three channel kinds for payloads from 64 B to 1 MiB. A
 * SCHED_FIFO 80 sender sends once per millisecond; SCHED_FIFO 70 receivers park until the channel
 * wakes them.
 *
 * <ul>
 *   <li>message: the timestamp is taken before {@code send}; the closure copies payload_bytes from
 *       the sender's buffer into the pre-allocated message (that copy is the channel's cost); the
 *       receiver reads the message in place.</li>
 *   <li>broadcast: the same, with two subscribers on two threads; every delivery is a sample.</li>
 *   <li>bulk: the sender produces its payload in place in the transfer scope (bump-allocates
 *       payload_bytes and writes its ends); the timestamp is taken when the data is ready, at the
 *       end of the closure, so the latency is the ownership transfer plus the wake-up: zero copy.</li>
 * </ul>
 *
 * The baseline, {@code impl=copy-queue}, runs the bulk cases the way a design without transfer
 * scopes does: the sender's payload is ready in its own buffer (the clock starts), it is copied
 * into a freshly allocated {@code byte[]} and handed over through a
 * {@code java.util.concurrent.ArrayBlockingQueue} of the same capacity to a receiver thread of the
 * same priority blocked in {@code take()}. Its latency includes the allocation and the copy.
 */
final class ChannelsBench implements Benchmark {
    static final long PERIOD_NANOS = 1_000_000L;
    static final int SENDER_PRIORITY = 80;
    static final int RECEIVER_PRIORITY = 70;
    static final int CAPACITY = 4;
    static final int SUBSCRIBERS = 2;
    static final String COPY_QUEUE = "copy-queue";

    @Override
    public String name() {
        return "channels";
    }

    @Override
    public String description() {
        return "message, broadcast and bulk channel latency, 64 B .. 1 MiB payloads";
    }

    /** One channel under test: a sending end and its receiving threads. */
    interface Participant {
        void start(Latency[] perReceiver);

        /** Sends one message stamped {@code stamp} (0 = warm-up, not recorded); @return false if dropped */
        boolean send(long stamp);

        /** Deliveries so far (all receivers). */
        long delivered();

        void stop() throws InterruptedException;
    }

    @Override
    public void run(BenchOptions o, Report report) throws Exception {
        int[] sizes = o.quick() ? new int[] {64, 65536, 1 << 20} : new int[] {64, 1024, 16384, 262144, 1 << 20};
        long messages = Math.max(100, (long) (o.nanosPerCase() / 4 / PERIOD_NANOS));
        Map<String, Report.Row> bulkRows = new LinkedHashMap<>();
        Map<String, Report.Row> copyRows = new LinkedHashMap<>();
        // impl/channel pairs; the baseline (copy-queue) runs the bulk cases: same payloads, same threads.
        String[][] runs = {{"rtdroid", "message"}, {"rtdroid", "broadcast"}, {"rtdroid", "bulk"}, {COPY_QUEUE, "bulk"}};
        for (String[] run : runs) {
            String impl = run[0];
            String channel = run[1];
            boolean first = true;
            for (int size : sizes) {
                Participant p = impl.equals(COPY_QUEUE) ? new CopyQueueParticipant(size) : switch (channel) {
                    case "message" -> new MessageParticipant(size);
                    case "broadcast" -> new BroadcastParticipant(size);
                    default -> new BulkParticipant(size);
                };
                Report.Row row = runCase(report, p, impl, channel, size, messages, first ? 5_000 : 200);
                if (channel.equals("bulk")) {
                    (impl.equals(COPY_QUEUE) ? copyRows : bulkRows).put(Integer.toString(size), row);
                }
                first = false;
            }
        }
        Report.Row small = bulkRows.get(Integer.toString(sizes[0]));
        Report.Row large = bulkRows.get(Integer.toString(sizes[sizes.length - 1]));
        double ratio = large.p99Micros() / small.p99Micros();
        report.goal("bulk p99 stays flat from " + sizes[0] + " B to " + sizes[sizes.length - 1] + " B (within 2x: zero copy)",
                String.format("p99 %.1f us at %d B vs %.1f us at %d B (%.2fx)", large.p99Micros(), sizes[sizes.length - 1],
                        small.p99Micros(), sizes[0], ratio), ratio <= 2.0);
        Report.Row copySmall = copyRows.get(Integer.toString(sizes[0]));
        Report.Row copyLarge = copyRows.get(Integer.toString(sizes[sizes.length - 1]));
        report.note(String.format("baseline copy-queue (fresh byte[] copy + ArrayBlockingQueue): p99 %.1f us at %d B vs "
                + "%.1f us at %d B (%.2fx); at %d B bulk p99 is %.2fx the copy-queue p99", copyLarge.p99Micros(),
                sizes[sizes.length - 1], copySmall.p99Micros(), sizes[0], copyLarge.p99Micros() / copySmall.p99Micros(),
                sizes[sizes.length - 1], large.p99Micros() / copyLarge.p99Micros()));
        report.note("sender SCHED_FIFO " + SENDER_PRIORITY + " every " + PERIOD_NANOS / 1000 + " us; receivers SCHED_FIFO "
                + RECEIVER_PRIORITY + " parked until woken; channel capacity " + CAPACITY + "; broadcast to " + SUBSCRIBERS
                + " subscribers; bulk timestamps are taken once the payload is produced in the transfer scope");
    }

    private Report.Row runCase(Report report, Participant p, String impl, String channel, int size, long messages,
                               int warmup)
            throws Exception {
        int receivers = p instanceof BroadcastParticipant ? SUBSCRIBERS : 1;
        Latency[] recs = new Latency[receivers];
        for (int i = 0; i < receivers; i++) {
            recs[i] = new Latency();
        }
        p.start(recs);
        long[] result = new long[2];
        Thread sender = RealtimeThreads.start("bench-sender", RealtimePolicy.fifo(SENDER_PRIORITY), () -> {
            long expected = 0;
            for (int i = 0; i < warmup; i++) { // JIT warm-up, one message in flight at a time
                if (p.send(0)) {
                    expected += receivers;
                }
                while (p.delivered() < expected) {
                    Thread.onSpinWait();
                }
            }
            long sent = 0;
            long dropped = 0;
            long next = Linux.monotonicNanos() + PERIOD_NANOS;
            for (long i = 0; i < messages; i++, next += PERIOD_NANOS) {
                Linux.sleepUntilNanos(next);
                if (p.send(1)) {
                    sent++;
                } else {
                    dropped++;
                }
            }
            result[0] = sent;
            result[1] = dropped;
        });
        sender.join();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (total(recs) < result[0] * receivers && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        p.stop();
        Latency all = new Latency();
        for (Latency r : recs) {
            all.histogram().add(r.histogram());
        }
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("channel", channel);
        cases.put("payload_bytes", size);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("sent", result[0]);
        extra.put("dropped", result[1]);
        extra.put("receivers", receivers);
        return report.row(impl, cases, all.histogram(), extra);
    }

    private static long total(Latency[] recs) {
        long n = 0;
        for (Latency r : recs) {
            n += r.histogram().getTotalCount();
        }
        return n;
    }

    /** A receiving thread: drains its source, parks when it is empty (the channel unparks it). */
    static final class Receiver {
        private final Thread thread;
        private volatile boolean running = true;
        volatile long delivered;

        Receiver(String name, InboundSource source, IntentConsumer consumer) {
            thread = RealtimeThreads.newThread(name, RealtimePolicy.fifo(RECEIVER_PRIORITY), null, () -> {
                while (running) {
                    if (source.deliverOne(consumer)) {
                        delivered++;
                    } else {
                        LockSupport.park(this);
                    }
                }
            });
            thread.setDaemon(true);
            source.setConsumerThread(thread);
            thread.start();
        }

        Receiver(String name, BulkChannel source, org.rtdroid.runtime.channel.BulkHandler handler) {
            thread = RealtimeThreads.newThread(name, RealtimePolicy.fifo(RECEIVER_PRIORITY), null, () -> {
                while (running) {
                    if (source.receive(handler)) {
                        delivered++;
                    } else {
                        LockSupport.park(this);
                    }
                }
            });
            thread.setDaemon(true);
            source.setConsumerThread(thread);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            LockSupport.unpark(thread);
            thread.join(5000);
        }
    }

    /** Where the sender stamps its send time in the payload (after the first byte the recorder reads). */
    static final int STAMP_OFFSET = 8;

    /** Records the latency of an intent stamped at {@link #STAMP_OFFSET} of its payload (0 = warm-up). */
    static IntentConsumer recorder(Latency rec) {
        return intent -> {
            long now = System.nanoTime();
            long stamp = intent.getLong(STAMP_OFFSET);
            byte[] p = intent.payload();
            if (p[0] + p[intent.payloadLength() - 1] == 1000) { // read the payload's ends
                stamp++;
            }
            if (stamp > 1) {
                rec.recordNanos(now - stamp);
            }
        };
    }

    /**
     * What the message and broadcast participants send: {@code size} bytes marked at both ends,
     * with the send time at {@link #STAMP_OFFSET}, filled in place by one pre-built closure.
     */
    abstract static class StampedMessages implements Participant {
        final int size;
        private final byte[] source;
        private long stamp;
        private final org.rtdroid.runtime.channel.MessageClosure fill;

        StampedMessages(int size) {
            this.size = size;
            this.source = new byte[size];
            source[0] = 1;
            source[size - 1] = 2;
            fill = m -> {
                m.setPayload(source, 0, size);
                m.putLong(STAMP_OFFSET, stamp);
            };
        }

        /** Sends one message filled by {@code fill}; @return the channel's verdict ({@link ChannelSender#SENT}, ...) */
        abstract int send(org.rtdroid.runtime.channel.MessageClosure fill);

        @Override
        public final boolean send(long s) {
            stamp = s == 0 ? 0 : System.nanoTime();
            return send(fill) == ChannelSender.SENT;
        }
    }

    static final class MessageParticipant extends StampedMessages {
        private MessageChannel channel;
        private ChannelSender sender;
        private Receiver receiver;

        MessageParticipant(int size) {
            super(size);
        }

        @Override
        public void start(Latency[] recs) {
            channel = new MessageChannel("bench-message", CAPACITY, size, DropPolicy.NEWEST, false);
            sender = new ChannelSender("bench-message", "bench-sender", SENDER_PRIORITY, false);
            receiver = new Receiver("bench-message-rx", channel, recorder(recs[0]));
        }


        @Override
        int send(org.rtdroid.runtime.channel.MessageClosure fill) {
            return channel.send(sender, fill);
        }

        @Override
        public long delivered() {
            return receiver.delivered;
        }

        @Override
        public void stop() throws InterruptedException {
            receiver.stop();
        }
    }

    static final class BroadcastParticipant extends StampedMessages {
        private BroadcastChannel channel;
        private ChannelSender sender;
        private final List<Receiver> receivers = new ArrayList<>();

        BroadcastParticipant(int size) {
            super(size);
        }

        @Override
        public void start(Latency[] recs) {
            channel = new BroadcastChannel("bench-broadcast", CAPACITY, size, SUBSCRIBERS, DropPolicy.NEWEST, false);
            sender = new ChannelSender("bench-broadcast", "bench-sender", SENDER_PRIORITY, false);
            for (int i = 0; i < SUBSCRIBERS; i++) {
                receivers.add(new Receiver("bench-broadcast-rx" + i, channel.subscriber(i), recorder(recs[i])));
            }
        }


        @Override
        int send(org.rtdroid.runtime.channel.MessageClosure fill) {
            return channel.broadcast(sender, fill);
        }

        @Override
        public long delivered() {
            long n = 0;
            for (Receiver r : receivers) {
                n += r.delivered;
            }
            return n;
        }

        @Override
        public void stop() throws InterruptedException {
            for (Receiver r : receivers) {
                r.stop();
            }
        }
    }

    static final class BulkParticipant implements Participant {
        private final int size;
        private final Arena arena = Arena.ofShared();
        private BulkChannel channel;
        private ChannelSender sender;
        private Receiver receiver;
        private boolean warm;
        private final org.rtdroid.runtime.channel.BulkClosure fill;

        BulkParticipant(int size) {
            this.size = size;
            fill = scope -> {
                long base = scope.allocate(size); // the payload, produced in place
                scope.putLong(base + size - 8, size);
                scope.putLong(base, warm ? 0 : System.nanoTime()); // data ready: start the clock
            };
        }

        @Override
        public void start(Latency[] recs) {
            MemorySegment region = arena.allocate((long) CAPACITY * size, 64);
            channel = new BulkChannel("bench-bulk", CAPACITY, size, DropPolicy.NEWEST, region);
            sender = new ChannelSender("bench-bulk", "bench-sender", SENDER_PRIORITY, false);
            Latency rec = recs[0];
            receiver = new Receiver("bench-bulk-rx", channel, (TransferScope scope) -> {
                long now = System.nanoTime();
                long stamp = scope.getLong(0);
                long end = scope.getLong(size - 8);
                if (stamp > 1 && end == size) {
                    rec.recordNanos(now - stamp);
                }
            });
        }


        @Override
        public boolean send(long s) {
            warm = s == 0;
            return channel.send(sender, fill) == ChannelSender.SENT;
        }

        @Override
        public long delivered() {
            return receiver.delivered;
        }

        @Override
        public void stop() throws InterruptedException {
            receiver.stop();
            arena.close();
        }
    }

    /** The baseline: copy into a fresh byte[], hand it over through an ArrayBlockingQueue. */
    static final class CopyQueueParticipant implements Participant {
        private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        private final int size;
        private final byte[] source;
        private final ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(CAPACITY);
        private Thread thread;
        private volatile boolean running = true;
        private volatile long delivered;

        CopyQueueParticipant(int size) {
            this.size = size;
            this.source = new byte[size];
            LONG.set(source, size - 8, (long) size); // the payload's far end, checked by the receiver
        }

        @Override
        public void start(Latency[] recs) {
            Latency rec = recs[0];
            thread = RealtimeThreads.newThread("bench-copy-rx", RealtimePolicy.fifo(RECEIVER_PRIORITY), null, () -> {
                while (running) {
                    byte[] b;
                    try {
                        b = queue.poll(100, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (b == null) {
                        continue;
                    }
                    long now = System.nanoTime();
                    long stamp = (long) LONG.get(b, 0);
                    if (stamp > 1 && (long) LONG.get(b, size - 8) == size) {
                        rec.recordNanos(now - stamp);
                    }
                    delivered++;
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public boolean send(long s) {
            LONG.set(source, 0, s == 0 ? 0L : System.nanoTime()); // data ready: start the clock
            byte[] copy = Arrays.copyOf(source, size);
            return queue.offer(copy);
        }

        @Override
        public long delivered() {
            return delivered;
        }

        @Override
        public void stop() throws InterruptedException {
            running = false;
            thread.interrupt();
            thread.join(5000);
        }
    }
}
