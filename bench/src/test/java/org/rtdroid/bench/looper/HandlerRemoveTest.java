package org.rtdroid.bench.looper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.rtdroid.bench.looper.fifo.Handler;
import org.rtdroid.bench.looper.fifo.HandlerThread;
import org.rtdroid.bench.looper.fifo.Message;

/** {@code removeMessages}, {@code hasMessages}, {@code removeCallbacksAndMessages(null)} on both loopers. */
class HandlerRemoveTest extends RtLooperThreadTest {
    private static final int POOL = 16;

    private static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(1);
        }
    }

    private static void await(CountDownLatch l) {
        try {
            assertTrue(l.await(10, TimeUnit.SECONDS), "timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** A handler whose looper is held in the first (BLOCK) message until {@code gate} opens. */
    private RtHandler blockedHandler(CountDownLatch gate, List<Integer> log, RtHandler.Callback extra) throws Exception {
        thread = new RtHandlerThread("remove-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        CountDownLatch blocked = new CountDownLatch(1);
        RtHandler h = new RtHandler(thread.getLooper(), "remover", POOL, 2, 0, m -> {
            if (m.what == BLOCK) {
                blocked.countDown();
                await(gate);
                return;
            }
            log.add(m.what);
            if (extra != null) {
                extra.handleMessage(m);
            }
        });
        h.sendEmptyMessage(BLOCK);
        await(blocked);
        return h;
    }

    @Test
    void removedMessagesAreNeverDeliveredAndReturnToThePool() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Integer> log = new CopyOnWriteArrayList<>();
        RtHandler h = blockedHandler(gate, log, null);
        RtHandler other = new RtHandler(h.getLooper(), "other", 4, 2, 0, m -> log.add(100 + m.what));
        for (int what : new int[] {1, 2, 1, 3}) {
            h.sendEmptyMessage(what);
        }
        h.sendMessageDelayed(h.obtainMessage(1), 10_000); // a delayed one is removed too
        other.sendEmptyMessage(1);                         // another handler's "1" is not
        // Let the looper sort some of them in: removal must find messages in inboxes and sorted lists alike.
        assertTrue(h.hasMessages(1) && h.hasMessages(2) && h.hasMessages(3));
        assertFalse(h.hasMessages(4));
        assertEquals(5, h.queuedCount());

        h.removeMessages(1);

        assertFalse(h.hasMessages(1), "no message 1 is queued once removeMessages returns");
        assertTrue(h.hasMessages(2) && other.hasMessages(1));
        assertEquals(2, h.queuedCount());
        gate.countDown();
        await("2, 3 and the other handler's 1 handled", () -> log.size() == 3);
        assertEquals(List.of(2, 3, 101), log.stream().sorted().toList());
        await("every message back in the pool", () -> h.freeCount() == POOL);
        assertFalse(h.hasMessages(2));
    }

    @Test
    void removingOnTheLooperThreadFreesTheMessagesAtOnce() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Integer> log = new CopyOnWriteArrayList<>();
        int[] freeAfterRemove = {-1};
        boolean[] hadSix = new boolean[2];
        RtHandler[] self = new RtHandler[1];
        RtHandler h = blockedHandler(gate, log, m -> {
            if (m.what == 5) {
                hadSix[0] = self[0].hasMessages(6);
                self[0].removeMessages(6);
                hadSix[1] = self[0].hasMessages(6);
                freeAfterRemove[0] = self[0].freeCount();
            }
        });
        self[0] = h;
        h.sendEmptyMessage(5);
        h.sendEmptyMessage(6);
        h.sendEmptyMessage(6);
        h.sendMessageDelayed(h.obtainMessage(6), 10_000);
        h.sendEmptyMessage(7);
        gate.countDown();
        await("5 and 7 handled", () -> log.size() == 2);
        assertEquals(List.of(5, 7), log);
        assertTrue(hadSix[0] && !hadSix[1]);
        // Only 5 (being handled) and 7 (queued) are out of the pool right after the removal.
        assertEquals(POOL - 2, freeAfterRemove[0]);
    }

    @Test
    void removeCallbacksAndMessagesNullClearsTheHandlersQueue() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Integer> log = new CopyOnWriteArrayList<>();
        RtHandler h = blockedHandler(gate, log, null);
        for (int i = 1; i <= 6; i++) {
            h.sendEmptyMessage(i);
        }
        h.removeCallbacksAndMessages(null);
        assertEquals(0, h.queuedCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.removeCallbacksAndMessages("t"));
        assertTrue(e.getMessage().contains("no obj"), e.getMessage());
        h.sendEmptyMessage(9);
        gate.countDown();
        await("9 handled", () -> log.size() == 1);
        assertEquals(List.of(9), log);
        await("every message back in the pool", () -> h.freeCount() == POOL);
    }

    /**
     * Send delayed, ask, remove, over and over from another thread: neither that thread nor the
     * looper thread (which frees what was removed) allocates once warm.
     */
    @Test
    void removeAndHasMessagesAllocateNothing() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        thread = new RtHandlerThread("remove-alloc-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        RtLooper looper = thread.getLooper();
        RtHandler h = new RtHandler(looper, "alloc", 64, 2, 0, m -> { });
        long[] senderBytes = {-1};
        long[] found = new long[1];
        StringBuilder senderWindows = new StringBuilder();
        Thread sender = new Thread(() -> {
            long tid = Thread.currentThread().threadId();
            Rounds r = new Rounds(h);
            try {
                AllocationWindows.warmUp(() -> {
                    long before = mx.getThreadAllocatedBytes(tid);
                    r.run(20_000);
                    return mx.getThreadAllocatedBytes(tid) - before;
                });
                senderBytes[0] = AllocationWindows.measure(senderWindows, () -> {
                    long before = mx.getThreadAllocatedBytes(tid);
                    r.found = 0;
                    r.run(100_000);
                    found[0] = r.found;
                    return mx.getThreadAllocatedBytes(tid) - before;
                });
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        long looperTid = looper.getThread().threadId();
        long looperBefore = mx.getThreadAllocatedBytes(looperTid);
        sender.start();
        sender.join(120_000);
        assertFalse(sender.isAlive());
        long looperAfterAll = mx.getThreadAllocatedBytes(looperTid);
        assertEquals(0, senderBytes[0], "bytes the remover allocated over windows of 100,000 send/has/remove rounds: "
                + senderWindows);
        assertTrue(found[0] >= 100_000, "hasMessages saw the queued messages: " + found[0]);
        await("pool refilled", () -> h.freeCount() == 64);
        // The looper thread ran purges throughout; its allocation (class init, JIT) must not grow per purge.
        StringBuilder looperWindows = new StringBuilder();
        long looperBytes = AllocationWindows.measure(looperWindows, () -> {
            long steady = mx.getThreadAllocatedBytes(looperTid);
            Thread remover = new Thread(() -> new Rounds(h).run(100_000));
            remover.start();
            remover.join(60_000);
            await("pool refilled", () -> h.freeCount() == 64);
            return mx.getThreadAllocatedBytes(looperTid) - steady;
        });
        assertEquals(0, looperBytes, "bytes the looper allocated purging windows of 100,000 removed messages: "
                + looperWindows + " (before: " + (looperAfterAll - looperBefore) + ")");
    }

    private static final class Rounds {
        final RtHandler h;
        long found;

        Rounds(RtHandler h) {
            this.h = h;
        }

        void run(int n) {
            for (int i = 0; i < n; i++) {
                RtMessage m;
                while ((m = h.tryObtainMessage()) == null) {
                    Thread.onSpinWait(); // the looper has not purged the last removals yet
                }
                m.what = 7;
                h.sendMessageDelayed(m, 60_000);
                if (h.hasMessages(7)) {
                    found++;
                }
                h.removeMessages(7);
            }
        }
    }

    @Test
    void fifoBaselineHandlerRemovesAndFindsMessagesLikeAndroid() throws Exception {
        HandlerThread t = new HandlerThread("fifo-remove");
        t.start();
        List<Integer> log = new CopyOnWriteArrayList<>();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Handler h = new Handler(t.getLooper()) {
            @Override
            public void handleMessage(Message m) {
                if (m.what == BLOCK) {
                    blocked.countDown();
                    HandlerRemoveTest.await(gate);
                    return;
                }
                log.add(m.what);
            }
        };
        Handler other = new Handler(t.getLooper()) {
            @Override
            public void handleMessage(Message m) {
                log.add(100 + m.what);
            }
        };
        try {
            h.sendEmptyMessage(BLOCK);
            await(blocked);
            for (int what : new int[] {1, 2, 1, 3}) {
                h.sendEmptyMessage(what);
            }
            other.sendEmptyMessage(1);
            assertTrue(h.hasMessages(1));
            h.removeMessages(1);
            assertFalse(h.hasMessages(1));
            assertTrue(h.hasMessages(2) && other.hasMessages(1));
            h.sendEmptyMessage(4);
            h.removeCallbacksAndMessages(null);
            assertFalse(h.hasMessages(2) || h.hasMessages(3) || h.hasMessages(4));
            assertThrows(IllegalArgumentException.class, () -> h.removeCallbacksAndMessages(new Object()));
            h.sendEmptyMessage(5);
            gate.countDown();
            await("5 and the other handler's 1 handled", () -> log.size() == 2);
            assertEquals(List.of(5, 101), log.stream().sorted().toList());
        } finally {
            gate.countDown();
            t.quit();
            t.join(5000);
        }
    }
}
