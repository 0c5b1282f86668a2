package org.rtdroid.runtime.alarm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * Ordering tests schedule their alarms before the alarm thread starts: every alarm is then due when
 * it first looks, so the order it fires them in is the heap's order, whatever the machine's load.
 */
class AlarmManagerTest {
    private static final long MS = 1_000_000L;

    /** Records what it receives, in arrival order, into pre-allocated arrays. */
    static final class Recorder implements IntentConsumer {
        final int[] what = new int[4096];
        final int[] senderPriority = new int[4096];
        final long[] trigger = new long[4096];
        final long[] fired = new long[4096];
        final int[] kernelPriority = new int[4096];
        final AtomicInteger count = new AtomicInteger();
        volatile boolean readKernel;

        @Override
        public void onIntent(RealtimeIntent in) {
            int i = count.get();
            what[i] = in.what;
            senderPriority[i] = in.senderPriority();
            trigger[i] = in.getLong(AlarmManager.TRIGGER_NANOS_OFFSET);
            fired[i] = in.getLong(AlarmManager.FIRE_NANOS_OFFSET);
            if (readKernel) {
                kernelPriority[i] = Linux.currentPolicy() == Linux.SCHED_FIFO ? Linux.currentPriority() : -1;
            }
            count.set(i + 1);
        }

        void awaitCount(int n) {
            while (count.get() < n) {
                Thread.onSpinWait();
            }
        }
    }

    private static AlarmManager manager(HandlerStrategy s, int capacity) {
        return new AlarmManager("test", capacity, s, 1, 60, null);
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void alarmsDueAtOneInstantAreFiredHighestSenderPriorityFirst(HandlerStrategy s) throws Exception {
        AlarmManager am = manager(s, 8);
        Recorder r = new Recorder();
        am.declareReceiver("R", 20, r);
        int[] senders = {5, 40, 10, 30, 40};
        long t = Linux.monotonicNanos() + 5 * MS;
        for (int i = 0; i < senders.length; i++) {
            assertTrue(am.setExact(t, am.getBroadcast("R", i, senders[i])));
        }
        am.start();
        try {
            r.awaitCount(5);
            // One receiver: its handler delivers in the order the alarm thread fired.
            assertArrayEquals(new int[] {1, 4, 3, 2, 0}, Arrays.copyOf(r.what, 5), "request codes in delivery order");
            assertArrayEquals(new int[] {40, 40, 30, 10, 5}, Arrays.copyOf(r.senderPriority, 5));
            for (int i = 0; i < 5; i++) {
                assertEquals(t, r.trigger[i]);
                assertTrue(r.fired[i] >= t, "fired no earlier than the trigger time");
            }
            assertEquals(0, am.scheduled());
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void alarmsAreFiredInTriggerTimeOrderWhateverTheirSendersPriority(HandlerStrategy s) throws Exception {
        AlarmManager am = manager(s, 8);
        Recorder r = new Recorder();
        am.declareReceiver("R", 20, r);
        long t = Linux.monotonicNanos() + 5 * MS;
        am.set(t + 3 * MS, am.getBroadcast("R", 3, 90));
        am.set(t + 1 * MS, am.getBroadcast("R", 1, 10));
        am.set(t + 2 * MS, am.getBroadcast("R", 2, 50));
        am.set(t + 1 * MS, am.getBroadcast("R", 11, 60));
        am.start();
        try {
            r.awaitCount(4);
            assertArrayEquals(new int[] {11, 1, 2, 3}, Arrays.copyOf(r.what, 4));
            assertTrue(r.fired[1] >= t + MS && r.fired[2] >= t + 2 * MS && r.fired[3] >= t + 3 * MS,
                    "none fired before its trigger time");
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void cancelRemovesAnAlarmAndSettingAgainReplacesIt(HandlerStrategy s) throws Exception {
        AlarmManager am = manager(s, 8);
        Recorder r = new Recorder();
        am.declareReceiver("R", 20, r);
        long t = Linux.monotonicNanos() + 5 * MS;
        PendingIntent a = am.getBroadcast("R", 1, 10);
        PendingIntent b = am.getBroadcast("R", 2, 10);
        PendingIntent c = am.getBroadcast("R", 3, 10);
        am.set(t, a);
        am.set(t + MS, b);
        am.set(t + 2 * MS, c);
        am.set(t + 3 * MS, a);               // replaces a's alarm at t
        assertEquals(3, am.scheduled());
        assertTrue(am.cancel(b));
        assertFalse(am.cancel(b), "nothing left to cancel");
        assertEquals(2, am.scheduled());
        am.start();
        try {
            r.awaitCount(2);
            assertArrayEquals(new int[] {3, 1}, Arrays.copyOf(r.what, 2));
            assertEquals(t + 3 * MS, r.trigger[1], "a fired at its replacing trigger time");
            assertFalse(am.cancel(a), "a one-shot alarm is gone once fired");
            assertEquals(2, am.fired());
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void anAlarmSetInThePastIsDiscarded(HandlerStrategy s) throws Exception {
        AlarmManager am = manager(s, 2);
        Recorder r = new Recorder();
        am.declareReceiver("R", 20, r);
        am.start();
        try {
            assertFalse(am.setExact(Linux.monotonicNanos() - MS, am.getBroadcast("R", 1, 10)));
            assertEquals(1, am.expired());
            assertEquals(0, am.scheduled());
        } finally {
            am.stop();
        }
        assertEquals(0, r.count.get());
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void aRepeatingAlarmFiresOnItsAbsoluteGridUntilCancelled(HandlerStrategy s) throws Exception {
        AlarmManager am = manager(s, 2);
        Recorder r = new Recorder();
        am.declareReceiver("R", 20, r);
        long t = Linux.monotonicNanos() + 2 * MS;
        long interval = 2 * MS;
        PendingIntent p = am.getBroadcast("R", 7, 10);
        am.start();
        try {
            assertTrue(am.setRepeating(t, interval, p));
            r.awaitCount(6);
            assertTrue(am.cancel(p), "still scheduled while repeating");
            assertEquals(0, am.scheduled());
            for (int i = 0; i < 6; i++) {
                assertEquals(7, r.what[i]);
                long offset = r.trigger[i] - t;
                assertEquals(0, offset % interval, "trigger " + i + " lies on the grid t + k * interval");
                if (i > 0) {
                    assertTrue(r.trigger[i] > r.trigger[i - 1], "trigger times increase");
                }
            }
            assertTrue(am.fired() >= 6);
        } finally {
            am.stop();
        }
    }

    @Disabled("hangs (BOUND seen): the low receiver gets fewer than its 200 deliveries; cause not yet found")
    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void aLowPriorityFloodAtTheSameInstantCannotDelayTheHighAlarm(HandlerStrategy s) throws Exception {
        int lows = 200;
        AlarmManager am = new AlarmManager("flood", lows + 1, s, 1, 60, null);
        Recorder high = new Recorder();
        Recorder low = new Recorder();
        am.declareReceiver("High", 50, high);
        am.declareReceiver("Low", 10, low);
        long t = Linux.monotonicNanos() + 5 * MS;
        PendingIntent[] lowIntents = new PendingIntent[lows];
        for (int i = 0; i < lows; i++) {
            lowIntents[i] = am.getBroadcast("Low", i, 5);
            am.setExact(t, lowIntents[i]);       // the burst, registered first
        }
        PendingIntent h = am.getBroadcast("High", 1000, 50);
        am.setExact(t, h);                       // the high alarm, registered last
        am.start();
        try {
            high.awaitCount(1);
            low.awaitCount(lows);
            for (int i = 0; i < lows; i++) {
                assertTrue(high.fired[0] <= low.fired[i], "the high alarm was fired before low alarm " + i);
            }
            // Second round while the alarm thread runs: a low-priority thread keeps re-setting its
            // alarms at the high alarm's instant until the high alarm has been delivered.
            long t2 = Linux.monotonicNanos() + 20 * MS;
            am.setExact(t2, h);
            Thread flooder = new Thread(() -> {
                while (high.count.get() < 2) {
                    for (PendingIntent p : lowIntents) {
                        am.setExact(t2, p);
                    }
                }
            });
            flooder.start();
            high.awaitCount(2);
            flooder.join();
            int before = low.count.get();
            for (int i = lows; i < before; i++) {
                if (low.trigger[i] == t2) {
                    assertTrue(high.fired[1] <= low.fired[i], "a low alarm of the same instant fired before the high one");
                }
            }
            assertEquals(t2, high.trigger[1]);
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void theReceiverRunsAtItsOwnPriorityAsTheKernelReportsIt(HandlerStrategy s) throws Exception {
        assumeTrue(RealtimeThreads.schedFifoPermitted(), "needs SCHED_FIFO (root or CAP_SYS_NICE)");
        AlarmManager am = new AlarmManager("prio", 4, s, 1, 60, RealtimePolicy::fifo);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        a.readKernel = true;
        b.readKernel = true;
        am.declareReceiver("A", 13, a);
        am.declareReceiver("B", 27, b);
        long t = Linux.monotonicNanos() + 5 * MS;
        am.set(t, am.getBroadcast("A", 1, 5));
        am.set(t + MS, am.getBroadcast("B", 2, 5));
        am.start();
        try {
            a.awaitCount(1);
            b.awaitCount(1);
            assertEquals(13, a.kernelPriority[0], "receiver A's callback ran SCHED_FIFO 13");
            assertEquals(27, b.kernelPriority[0], "receiver B's callback ran SCHED_FIFO 27");
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void setCancelFireAndDeliverAllocateNothingInSteadyState(HandlerStrategy s) throws Exception {
        assertTrue(HeapMeter.supported(), "this JVM must measure per-thread allocation");
        AlarmManager am = new AlarmManager("alloc", 8, s, 2, 60, null);
        Recorder hi = new Recorder();
        Recorder lo = new Recorder();
        am.declareReceiver("Hi", 30, hi);
        am.declareReceiver("Lo", 10, lo);
        PendingIntent a = am.getBroadcast("Hi", 1, 30);
        PendingIntent b = am.getBroadcast("Lo", 2, 10);
        PendingIntent c = am.getBroadcast("Lo", 3, 10);
        am.start();
        try {
            Runnable rounds = () -> {
                for (int i = 0; i < 300; i++) {
                    // A set whose time passed meanwhile (this thread was preempted) is discarded
                    // and not waited for.
                    long t = Linux.monotonicNanos() + 200_000;
                    boolean loSet = am.setExact(t, b);
                    am.setExact(t, c);
                    am.cancel(c);
                    boolean hiSet = am.set(t, a);
                    if (hiSet) {
                        hi.awaitCount(1);
                    }
                    if (loSet) {
                        lo.awaitCount(1);
                    }
                    hi.count.set(0);
                    lo.count.set(0);
                }
            };
            for (int w = 0; w < 15; w++) {
                rounds.run();
            }
            Thread[] threads = new Thread[am.dispatcher().threads().length + 1];
            System.arraycopy(am.dispatcher().threads(), 0, threads, 0, threads.length - 1);
            threads[threads.length - 1] = am.thread();
            long mine = -1;
            long others = -1;
            // Up to three windows, one must be clean (a one-off deoptimisation is not steady state).
            for (int w = 0; w < 3 && (mine != 0 || others != 0); w++) {
                long[] before = new long[threads.length];
                for (int i = 0; i < threads.length; i++) {
                    before[i] = HeapMeter.threadAllocatedBytes(threads[i].threadId());
                }
                long m = HeapMeter.currentThreadAllocatedBytes();
                rounds.run();
                mine = HeapMeter.currentThreadAllocatedBytes() - m;
                others = 0;
                for (int i = 0; i < threads.length; i++) {
                    others += HeapMeter.threadAllocatedBytes(threads[i].threadId()) - before[i];
                }
            }
            assertEquals(0, mine, s + ": bytes allocated by the setting thread over 300 rounds of set/cancel");
            assertEquals(0, others, s + ": bytes allocated by the alarm thread and the handler threads over 300 rounds");
        } finally {
            am.stop();
        }
    }
}
