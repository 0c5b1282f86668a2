package org.rtdroid.runtime.alarm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
 * No verdict here depends on the machine's load. {@code schedule} discards an alarm whose time has
 * passed, so every test counts only alarms that were accepted: an instant is chosen ahead of now
 * and, if it passed before the alarms were set, chosen again further ahead
 * ({@link #setBeforeStart}, {@link #setAhead}). Ordering tests set their alarms before the alarm
 * thread starts, so the order it fires them in is the heap's order. Assertions are about order
 * (the alarm thread's firing timestamps, taken on that one thread, never decrease), never about how
 * late something was. Waits are bounded ({@link Recorder#awaitCount}): a lost delivery fails with a
 * message instead of hanging the build.
 */
class AlarmManagerTest {
    private static final long MS = 1_000_000L;
    /** Lead of the first attempt at an instant ahead of now (doubled on each retry). */
    private static final long LEAD = 5 * MS;
    /** How long a test waits for something that must happen before it fails (not a budget: a hang guard). */
    private static final long GIVE_UP_NANOS = 60_000 * MS;

    /**
     * Before {@link AlarmManager#start}: sets {@code ops[i]} at {@code t + offsets[i]} for one
     * instant {@code t} ahead of now. If any set is discarded (its time passed while this thread
     * was preempted) all are cancelled and a later {@code t} is tried, so on return every alarm is
     * scheduled. Nothing fires meanwhile: the alarm thread has not started.
     *
     * @return {@code t}
     */
    static long setBeforeStart(AlarmManager am, long[] offsets, PendingIntent... ops) {
        assertTrue(am.thread() == null, "only before the alarm thread starts");
        for (long lead = LEAD; ; lead *= 2) {
            long t = Linux.monotonicNanos() + lead;
            boolean all = true;
            for (int i = 0; i < ops.length && all; i++) {
                all = am.setExact(t + offsets[i], ops[i]);
            }
            if (all) {
                return t;
            }
            for (PendingIntent p : ops) {
                am.cancel(p);
            }
        }
    }

    /** {@link #setBeforeStart} with every alarm at the one instant {@code t}. */
    static long setAllAt(AlarmManager am, PendingIntent... ops) {
        return setBeforeStart(am, new long[ops.length], ops);
    }

    /**
     * Sets {@code p} (repeating if {@code interval > 0}) at an instant ahead of now, trying later
     * ones until the manager accepts it. Allocates nothing.
     *
     * @return the accepted trigger time
     */
    static long setAhead(AlarmManager am, PendingIntent p, long lead, long interval) {
        for (; ; lead *= 2) {
            long t = Linux.monotonicNanos() + lead;
            if (interval > 0 ? am.setRepeating(t, interval, p) : am.setExact(t, p)) {
                return t;
            }
        }
    }

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

        /** Waits (bounded, allocation-free unless it fails) until {@code n} alarms were received. */
        void awaitCount(int n) {
            long giveUp = System.nanoTime() + GIVE_UP_NANOS;
            while (count.get() < n) {
                if (System.nanoTime() - giveUp > 0) {
                    fail("received " + count.get() + " alarms, expected " + n);
                }
                LockSupport.parkNanos(20_000);
            }
        }
    }

    /** A manager of {@code capacity} alarms whose one receiver "R" (priority 20) is {@code r}. */
    private static AlarmManager manager(HandlerStrategy s, int capacity, Recorder r) {
        AlarmManager am = new AlarmManager("test", capacity, s, 1, 60, null);
        am.declareReceiver("R", 20, r);
        return am;
    }

    /** What a test does while its manager runs. */
    interface Running {
        void run() throws Exception;
    }

    /** Starts {@code am}, runs {@code body} and stops {@code am} whatever the body did. */
    private static void whileRunning(AlarmManager am, Running body) throws Exception {
        am.start();
        try {
            body.run();
        } finally {
            am.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void alarmsDueAtOneInstantAreFiredHighestSenderPriorityFirst(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 8, r);
        int[] senders = {5, 40, 10, 30, 40};
        PendingIntent[] ops = new PendingIntent[senders.length];
        for (int i = 0; i < senders.length; i++) {
            ops[i] = am.getBroadcast("R", i, senders[i]);
        }
        long t = setAllAt(am, ops);
        whileRunning(am, () -> {
            r.awaitCount(5);
            // One receiver: its handler delivers in the order the alarm thread fired.
            assertArrayEquals(new int[] {1, 4, 3, 2, 0}, Arrays.copyOf(r.what, 5), "request codes in delivery order");
            assertArrayEquals(new int[] {40, 40, 30, 10, 5}, Arrays.copyOf(r.senderPriority, 5));
            for (int i = 0; i < 5; i++) {
                assertEquals(t, r.trigger[i]);
                assertTrue(r.fired[i] >= t, "fired no earlier than the trigger time");
            }
            assertEquals(0, am.scheduled());
        });
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void alarmsAreFiredInTriggerTimeOrderWhateverTheirSendersPriority(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 8, r);
        long t = setBeforeStart(am, new long[] {3 * MS, 1 * MS, 2 * MS, 1 * MS},
                am.getBroadcast("R", 3, 90), am.getBroadcast("R", 1, 10),
                am.getBroadcast("R", 2, 50), am.getBroadcast("R", 11, 60));
        whileRunning(am, () -> {
            r.awaitCount(4);
            assertArrayEquals(new int[] {11, 1, 2, 3}, Arrays.copyOf(r.what, 4));
            assertTrue(r.fired[1] >= t + MS && r.fired[2] >= t + 2 * MS && r.fired[3] >= t + 3 * MS,
                    "none fired before its trigger time");
        });
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void cancelRemovesAnAlarmAndSettingAgainReplacesIt(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 8, r);
        PendingIntent a = am.getBroadcast("R", 1, 10);
        PendingIntent b = am.getBroadcast("R", 2, 10);
        PendingIntent c = am.getBroadcast("R", 3, 10);
        // The last set of a replaces its alarm at t.
        long t = setBeforeStart(am, new long[] {0, MS, 2 * MS, 3 * MS}, a, b, c, a);
        assertEquals(3, am.scheduled());
        assertTrue(am.cancel(b));
        assertFalse(am.cancel(b), "nothing left to cancel");
        assertEquals(2, am.scheduled());
        whileRunning(am, () -> {
            r.awaitCount(2);
            assertArrayEquals(new int[] {3, 1}, Arrays.copyOf(r.what, 2));
            assertEquals(t + 3 * MS, r.trigger[1], "a fired at its replacing trigger time");
            assertFalse(am.cancel(a), "a one-shot alarm is gone once fired");
        });
        assertEquals(2, am.fired(), "fired: c and a's replacement (counted once the alarm thread has ended)");
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void anAlarmSetInThePastIsDiscarded(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 2, r);
        whileRunning(am, () -> {
            assertFalse(am.setExact(Linux.monotonicNanos() - MS, am.getBroadcast("R", 1, 10)));
            assertEquals(1, am.expired());
            assertEquals(0, am.scheduled());
        });
        assertEquals(0, r.count.get());
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void aDiscardedSetLeavesThePendingIntentsScheduledAlarmAsItWas(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 2, r);
        PendingIntent p = am.getBroadcast("R", 1, 10);
        long t = setAllAt(am, p);
        assertFalse(am.setExact(Linux.monotonicNanos() - MS, p), "a time in the past is discarded");
        assertEquals(1, am.scheduled(), "the alarm at t is still scheduled");
        whileRunning(am, () -> {
            r.awaitCount(1);
            assertEquals(t, r.trigger[0], "delivered at the accepted trigger time");
        });
        assertEquals(1, am.expired());
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void aRepeatingAlarmFiresOnItsAbsoluteGridUntilCancelled(HandlerStrategy s) throws Exception {
        Recorder r = new Recorder();
        AlarmManager am = manager(s, 2, r);
        long interval = 2 * MS;
        PendingIntent p = am.getBroadcast("R", 7, 10);
        whileRunning(am, () -> {
            long t = setAhead(am, p, 2 * MS, interval);
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
        });
    }

    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void aLowPriorityFloodAtTheSameInstantCannotDelayTheHighAlarm(HandlerStrategy s) throws Exception {
        int lows = 200;
        AlarmManager am = new AlarmManager("flood", lows + 1, s, 1, 60, null);
        Recorder high = new Recorder();
        Recorder low = new Recorder();
        am.declareReceiver("High", 50, high);
        am.declareReceiver("Low", 10, low);
        // The burst, registered first, and the high alarm, registered last, all at one instant.
        PendingIntent[] batch = new PendingIntent[lows + 1];
        PendingIntent[] lowIntents = new PendingIntent[lows];
        for (int i = 0; i < lows; i++) {
            lowIntents[i] = am.getBroadcast("Low", i, 5);
            batch[i] = lowIntents[i];
        }
        PendingIntent h = am.getBroadcast("High", 1000, 50);
        batch[lows] = h;
        long t = setAllAt(am, batch);
        whileRunning(am, () -> {
            high.awaitCount(1);
            low.awaitCount(lows);
            assertEquals(t, high.trigger[0]);
            for (int i = 0; i < lows; i++) {
                assertEquals(t, low.trigger[i]);
                assertTrue(high.fired[0] <= low.fired[i], "the high alarm was fired before low alarm " + i);
            }
            // Second round while the alarm thread runs: the high alarm is set at an instant t2, then
            // a low-priority thread keeps re-setting its alarms at t2 until the high alarm has been
            // delivered. Every low alarm it got accepted at t2 must fire after the high one.
            long t2 = setAhead(am, h, 20 * MS, 0);
            AtomicInteger acceptedLows = new AtomicInteger();
            Thread flooder = new Thread(() -> {
                while (high.count.get() < 2) {
                    for (PendingIntent p : lowIntents) {
                        if (am.setExact(t2, p)) {
                            acceptedLows.incrementAndGet();
                        }
                    }
                }
            });
            flooder.start();
            high.awaitCount(2);
            flooder.join();
            assertEquals(t2, high.trigger[1]);
            // Each low intent's last accepted set at t2 (earlier ones were replaced) is delivered.
            int lowsAtT2 = Math.min(lows, acceptedLows.get());
            low.awaitCount(lows + lowsAtT2);
            int received = low.count.get();
            for (int i = lows; i < received; i++) {
                assertEquals(t2, low.trigger[i], "only alarms set at t2 in round two");
                assertTrue(high.fired[1] <= low.fired[i], "low alarm " + i + " of the same instant fired before the high one");
            }
        });
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
        setBeforeStart(am, new long[] {0, MS}, am.getBroadcast("A", 1, 5), am.getBroadcast("B", 2, 5));
        whileRunning(am, () -> {
            a.awaitCount(1);
            b.awaitCount(1);
            assertEquals(13, a.kernelPriority[0], "receiver A's callback ran SCHED_FIFO 13");
            assertEquals(27, b.kernelPriority[0], "receiver B's callback ran SCHED_FIFO 27");
        });
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
        whileRunning(am, () -> {
            Runnable rounds = () -> {
                for (int i = 0; i < 300; i++) {
                    // Each round fires and delivers both alarms: an instant that passed before
                    // the set (this thread preempted) is retried further ahead.
                    long t = setAhead(am, b, 200_000, 0);
                    am.setExact(t, c);
                    am.cancel(c);
                    if (!am.set(t, a)) {
                        setAhead(am, a, 200_000, 0);
                    }
                    hi.awaitCount(1);
                    lo.awaitCount(1);
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
        });
    }
}
