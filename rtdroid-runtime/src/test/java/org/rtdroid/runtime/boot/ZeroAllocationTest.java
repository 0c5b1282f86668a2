package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.MessageStolenException;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextPublisher;
import org.rtdroid.runtime.channel.MessageChannel;

/**
 * The promise that matters most: after warm-up, the real-time threads allocate nothing. A periodic
 * task (20 µs period) runs 100,000 releases, each using its release scope and sending one message
 * through a message channel to a receiver, which handles 100,000 of them; the per-thread allocated
 * byte counters of both real-time threads must not move. The cross-context endpoint's deliver/poll
 * path is held to the same rule on the (proxy) test thread.
 */
class ZeroAllocationTest {
    /**
     * Releases / messages before measuring: long enough for C2 to compile the paths. (Before that,
     * a deoptimization can re-materialize a scalar-replaced object on the heap: seen once, 184 B,
     * around 30,000 iterations, never after.)
     */
    static final int WARMUP = 50_000;
    static final int MEASURED = 100_000;

    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Every 10,000 releases / messages a thread records its allocated-bytes counter here. */
    static final int WINDOW = 10_000;
    static final int MARKS = 40;

    public static final class Sender extends RealtimeService {
        static final long[] MARK = new long[MARKS];
        static volatile int marks;
        static volatile long stolen;

        @Override
        public void onStartCommand() {
            registerTask("tick", new Tick());
        }

        private final class Tick extends PeriodicTask implements MessageClosure {
            private MessagePublisher out;
            private long n;

            @Override
            public void onRelease() {
                if (out == null) {
                    out = messagePublisher("pairs");
                }
                n++;
                if (n % WINDOW == 0 && marks < MARKS) {
                    MARK[marks] = HeapMeter.currentThreadAllocatedBytes();
                    marks = marks + 1;
                }
                long at = releaseScope().allocate(256);
                releaseScope().putLong(at, n);
                try {
                    out.send(this);
                } catch (MessageStolenException e) {
                    stolen += e.stolenCount();
                }
            }

            @Override
            public void genMsg(RealtimeIntent m) {
                m.what = 1;
                m.putLong(0, n);
            }
        }
    }

    public static final class Sink extends RealtimeReceiver {
        static final long[] MARK = new long[MARKS];
        static volatile int marks;
        static volatile long received;
        static volatile long checksum;

        @Override
        public void onReceive(RealtimeIntent intent) {
            long n = received + 1;
            received = n;
            checksum += intent.getLong(0);
            long at = releaseScope().allocate(64);
            releaseScope().putLong(at, n);
            if (n % WINDOW == 0 && marks < MARKS) {
                MARK[marks] = HeapMeter.currentThreadAllocatedBytes();
                marks = marks + 1;
            }
        }
    }

    /**
     * Index of the first mark after which {@code windows} consecutive windows allocated nothing,
     * skipping the first {@code minWarm} windows; -1 if there is no such run (yet).
     */
    static int steadyFrom(long[] mark, int count, int minWarm, int windows) {
        for (int s = minWarm; s + windows < count; s++) {
            if (mark[s + windows] - mark[s] == 0) {
                return s;
            }
        }
        return -1;
    }

    @Test
    void periodicReleasesAndMessagePairsAllocateNothingInSteadyState() throws Exception {
        assertTrue(HeapMeter.supported(), "this JVM must measure per-thread allocation");
        String mem = "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>";
        // on-failure="continue": on a loaded machine the JIT may not have compiled the release path
        // within the runtime's 1,000-callback grace, and a warm-up release then trips the 4K heap
        // bound (seen once in CI: 31 KB in release ~4,300 of a 20 us task overrunning every period).
        // That policy is tested elsewhere; here only the measured steady-state windows count.
        DeployedApp app = Apps.deploy(host, "alloc",
                "<service name=\"" + Sender.class.getName() + "\" priority=\"60\" on-failure=\"continue\">" + mem
                + "<periodic-task name=\"tick\"><memSizes release=\"4K\"/><release periodic=\"20us\"/></periodic-task>"
                + Apps.filter("publisher", "pairs") + "</service>"
                + Apps.receiver(Sink.class, 70, "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
                        Apps.filter("subscriber", "pairs")).replace("<receiver ", "<receiver on-failure=\"continue\" ")
                + "<channel name=\"pairs\" type=\"rt-msg\" capacity=\"64\"><data size=\"16B\"/></channel>");
        int windows = MEASURED / WINDOW;
        int warm = WARMUP / WINDOW;
        try {
            // Steady state: after at least 50,000 warm-up releases, 100,000 releases (and 100,000
            // messages) in a row during which the thread's allocated-bytes counter does not move.
            Apps.await("100,000 allocation-free releases and messages after warm-up", 60_000,
                    () -> steadyFrom(Sender.MARK, Sender.marks, warm, windows) >= 0
                            && steadyFrom(Sink.MARK, Sink.marks, warm, windows) >= 0);
        } catch (AssertionError e) {
            StringBuilder b = new StringBuilder(e.getMessage()).append("; task thread bytes per 10,000 releases:");
            for (int i = 1; i < Sender.marks; i++) {
                b.append(' ').append(Sender.MARK[i] - Sender.MARK[i - 1]);
            }
            b.append("; receiver thread bytes per 10,000 messages:");
            for (int i = 1; i < Sink.marks; i++) {
                b.append(' ').append(Sink.MARK[i] - Sink.MARK[i - 1]);
            }
            b.append("; status ").append(host.services()).append("; failure ")
                    .append(app.componentRuntime("Sender").lastFailure());
            throw new AssertionError(b.toString(), e);
        }
        int s = steadyFrom(Sender.MARK, Sender.marks, warm, windows);
        int r = steadyFrom(Sink.MARK, Sink.marks, warm, windows);
        var task = app.componentRuntime("Sender").tasks().get(0);
        System.out.printf("zero-allocation: task thread 0 B over releases %d..%d, receiver thread 0 B over messages "
                + "%d..%d (%d releases so far, %d stolen)%n", (s + 1) * WINDOW, (s + 1 + windows) * WINDOW,
                (r + 1) * WINDOW, (r + 1 + windows) * WINDOW, task.releases(), Sender.stolen);
        assertEquals(0, Sender.MARK[s + windows] - Sender.MARK[s]);
        assertEquals(0, Sink.MARK[r + windows] - Sink.MARK[r]);
        // The only failures allowed are warm-up heap-bound trips (see on-failure above): a trip
        // inside the measured windows would have shown as allocated bytes there.
        for (String c : new String[] {"Sender", "Sink"}) {
            var rt = app.componentRuntime(c);
            long heapTrips = rt.heapViolations() + rt.tasks().stream().mapToLong(t -> t.heapViolations()).sum();
            assertEquals(heapTrips, rt.failures(), c + " failed other than by a warm-up heap-bound trip: "
                    + rt.lastFailure());
        }
    }

    /** Holds its first intent forever, so the test thread is the inbound queue's only taker. */
    public static final class Parked extends RealtimeReceiver {
        static final java.util.concurrent.CountDownLatch RELEASE = new java.util.concurrent.CountDownLatch(1);

        @Override
        public void onReceive(RealtimeIntent intent) {
            try {
                RELEASE.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The proxy's side of the endpoint, driven from one thread like the RT proxy does. */
    private static final class ProxyRounds {
        final CrossContextEndpoint ep;
        final MessageChannel inbound;
        final CrossContextPublisher publisher;
        final byte[] name = "in".getBytes();
        final byte[] sender = "org.example".getBytes();
        final CrossContextIntent in = new CrossContextIntent().setChannel("in").setAction("a").setSender("org.example");
        final CrossContextIntent out = new CrossContextIntent();
        final RealtimeIntent taken = new RealtimeIntent("in", 224);
        final CrossContextClosure reply = o -> o.setAction("r").setPayloadLength(100);
        long delivered;
        long full;

        ProxyRounds(CrossContextEndpoint ep, MessageChannel inbound, CrossContextPublisher publisher) {
            this.ep = ep;
            this.inbound = inbound;
            this.publisher = publisher;
            in.setPayloadLength(200);
        }

        /** @return heap bytes this thread allocated during {@code n} rounds */
        long rounds(int n) {
            long start = HeapMeter.currentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                int id = ep.channelId(name, 0, name.length);
                if (ep.mayReceiveFrom(id, sender, 0, sender.length, 5)) {
                    in.setCorrelationId(i);
                    int rc = ep.deliver(id, in);
                    if (rc == CrossContextEndpoint.DELIVERED) {
                        delivered++;
                    } else if (rc == CrossContextEndpoint.CHANNEL_FULL) {
                        full++;
                    }
                }
                // Drain only every 16th round: the queue (8 free slots) fills, so both paths stay hot.
                if ((i & 15) == 15) {
                    while (inbound.receive(taken)) {
                        delivered--;
                    }
                }
                publisher.publish(reply);
                ep.pollOutbound(out);
            }
            return HeapMeter.currentThreadAllocatedBytes() - start;
        }
    }

    @Test
    void crossContextDeliverPublishAndPollAllocateNothing() throws Exception {
        DeployedApp app = Apps.deploy(host, "xq", Apps.receiver(Parked.class, 50,
                "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
                Apps.filter("subscriber", "in") + Apps.filter("publisher", "out"))
                + "<channel name=\"in\" type=\"cross-context\" direction=\"in\" capacity=\"9\"><data size=\"224B\"/>"
                + "<allow sender=\"*\"/></channel>"
                + "<channel name=\"out\" type=\"cross-context\" direction=\"out\" capacity=\"8\"><data size=\"224B\"/>"
                + "</channel>");
        try {
            ProxyRounds proxy = new ProxyRounds(host.crossContext(), app.crossContextInbound("in"),
                    app.crossContextPublisher("out"));
            // Park the receiver on a first intent: from then on the test thread takes from the queue.
            proxy.ep.deliver(proxy.ep.channelId(proxy.name, 0, proxy.name.length), proxy.in);
            Apps.await("receiver parked", 5_000, () -> proxy.inbound.size() == 0);
            // Warm-up ends when a whole window of rounds allocates nothing: until the JIT has compiled
            // every path, uncommon traps resolve classes (String names on this thread) and
            // deoptimization re-materializes objects. Steady state is what is promised.
            long warm = -1;
            for (int w = 0; w < 30 && warm != 0; w++) {
                warm = proxy.rounds(20_000);
            }
            assertEquals(0, warm, "no allocation-free window within 600,000 warm-up rounds");
            // Even after a clean window the JIT can still deoptimise once (a branch taken in a new
            // pattern; 472 B in one CI run), and deoptimization re-materializes objects on this
            // thread. That is a one-off: up to three windows are measured and one must be clean. A
            // real per-round allocation shows in every window (100,000 rounds: megabytes).
            StringBuilder windows = new StringBuilder();
            long bytes = -1;
            for (int w = 0; w < 3 && bytes != 0; w++) {
                bytes = proxy.rounds(MEASURED);
                windows.append(w == 0 ? "" : ", ").append(bytes);
            }
            assertTrue(proxy.full > 0 && proxy.delivered >= 0, "both delivery outcomes exercised");
            assertEquals(0, bytes, "bytes allocated by the proxy thread over windows of 100,000 deliver/publish/poll rounds: "
                    + windows);
        } finally {
            Parked.RELEASE.countDown();
        }
    }
}
