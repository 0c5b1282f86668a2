package org.rtdroid.bench.looper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

class RtLooperTest extends RtLooperThreadTest {

    /** Runs {@code body} on a thread that declared real-time priority {@code priority}. */
    private static void as(int priority, Runnable body) throws InterruptedException {
        Thread t = new Thread(() -> {
            RealtimeThreads.applyToCurrentThread(new RealtimePolicy(priority, null, 0));
            body.run();
        });
        t.start();
        t.join();
    }

    /** The handler has taken the first message (what == BLOCK) and holds the looper until {@link #gate} opens. */
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    /** "what@priority" of each message handled after BLOCK, in order. */
    private final List<String> log = new CopyOnWriteArrayList<>();

    /** A looper at base priority {@code base} whose handler blocks on the first message (what == BLOCK) until {@link #gate} opens. */
    private RtHandler start(MessagePolicy policy, int base) {
        thread = new RtHandlerThread("test-looper", base, policy);
        thread.start();
        return new RtHandler(thread.getLooper(), "test", 64, 2, 0, m -> {
            if (m.what == BLOCK) {
                blocked.countDown();
                await(gate);
                return;
            }
            log.add(m.what + "@" + m.getPriority());
        });
    }

    /** A looper at base priority 0 whose handler holds it on a BLOCK message, sent from this thread, until {@link #gate} opens. */
    private RtHandler startBlocked(MessagePolicy policy) {
        RtHandler h = start(policy, 0);
        h.sendEmptyMessage(BLOCK);
        await(blocked);
        return h;
    }

    private static void await(CountDownLatch l) {
        try {
            assertTrue(l.await(10, TimeUnit.SECONDS), "timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Sends {@code n} messages from this thread and waits until the looper handled them. */
    private static long window(ThreadMXBean mx, IntConsumer send, int n, RtLooper looper, long[] sent, long[] bytes,
            long tid, long looperTid) throws InterruptedException {
        long looperBefore = mx.getThreadAllocatedBytes(looperTid);
        long before = mx.getThreadAllocatedBytes(tid);
        send.accept(n);
        bytes[0] = mx.getThreadAllocatedBytes(tid) - before;
        sent[0] += n;
        waitHandled(looper, sent[0]);
        bytes[1] = mx.getThreadAllocatedBytes(looperTid) - looperBefore;
        return bytes[0] + bytes[1];
    }

    private static void waitHandled(RtLooper looper, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (looper.handledCount() < count) {
            assertTrue(System.nanoTime() < deadline, "looper handled " + looper.handledCount() + " of " + count);
            Thread.sleep(1);
        }
    }

    @Test
    void higherPriorityMessagesAreHandledFirstAndEqualOnesInSendOrder() throws Exception {
        RtHandler h = startBlocked(MessagePolicy.INHERITANCE);
        as(10, () -> h.sendEmptyMessage(1));
        as(50, () -> h.sendEmptyMessage(2));
        as(30, () -> h.sendEmptyMessage(3));
        as(0, () -> h.sendEmptyMessage(4));
        as(50, () -> h.sendEmptyMessage(5));
        as(10, () -> h.sendEmptyMessage(6));
        gate.countDown();
        waitHandled(h.getLooper(), 7);
        assertEquals(List.of("2@50", "5@50", "3@30", "1@10", "6@10", "4@0"), log);
    }

    @Test
    void inheritancePlusSpecifiedOrdersASendersMessagesButCapsAtItsPriority() throws Exception {
        RtHandler h = startBlocked(MessagePolicy.INHERITANCE_SPECIFIED);
        as(40, () -> {
            h.sendMessage(h.obtainMessage(1).setPriority(10));
            h.sendMessage(h.obtainMessage(2).setPriority(30));
            h.sendMessage(h.obtainMessage(3).setPriority(90)); // capped at the sender's 40
            h.sendMessage(h.obtainMessage(4));                 // inherits 40
        });
        gate.countDown();
        waitHandled(h.getLooper(), 5);
        assertEquals(List.of("3@40", "4@40", "2@30", "1@10"), log);
    }

    @Test
    void plainInheritanceIgnoresASpecifiedPriority() throws Exception {
        RtHandler h = startBlocked(MessagePolicy.INHERITANCE);
        as(40, () -> {
            h.sendMessage(h.obtainMessage(1).setPriority(10));
            h.sendMessage(h.obtainMessage(2).setPriority(30));
        });
        gate.countDown();
        waitHandled(h.getLooper(), 3);
        assertEquals(List.of("1@40", "2@40"), log);
    }

    @Test
    void theLooperInheritsThePriorityOfTheHighestPendingMessage() throws Exception {
        RtHandler h = start(MessagePolicy.INHERITANCE, 5);
        RtLooper looper = h.getLooper();
        assertEquals(5, looper.effectivePriority());
        as(0, () -> h.sendEmptyMessage(BLOCK)); // handled at base 5 (message priority 0)
        await(blocked);
        assertEquals(5, looper.effectivePriority());
        as(20, () -> h.sendEmptyMessage(1));
        assertEquals(20, looper.effectivePriority(), "raised by the sender while the looper is busy");
        as(60, () -> h.sendEmptyMessage(2));
        assertEquals(60, looper.effectivePriority());
        as(30, () -> h.sendEmptyMessage(3));
        assertEquals(60, looper.effectivePriority(), "a lower message does not lower it");
        gate.countDown();
        waitHandled(looper, 4);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (looper.effectivePriority() != 5 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(5, looper.effectivePriority(), "back to base once the backlog is handled");
        assertEquals(List.of("2@60", "3@30", "1@20"), log);
        if (RealtimeThreads.schedFifoPermitted()) {
            assertTrue(looper.osPriorityApplied());
        } else {
            assertFalse(looper.osPriorityApplied());
        }
    }

    @Test
    void delayedMessagesWaitForTheirTimeAndDoNotBlockDueOnes() throws Exception {
        long[] handledAt = new long[1];
        thread = new RtHandlerThread("delay-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        RtHandler h = new RtHandler(thread.getLooper(), "delays", 8, 2, 0, m -> {
            log.add(Integer.toString(m.what));
            if (m.what == 1) {
                handledAt[0] = System.nanoTime();
            }
        });
        long sent = System.nanoTime();
        as(50, () -> h.sendMessageDelayed(h.obtainMessage(1), 50));
        as(0, () -> h.sendEmptyMessage(2));
        waitHandled(h.getLooper(), 2);
        assertEquals(List.of("2", "1"), log);
        assertTrue(handledAt[0] - sent >= 50_000_000L, "delayed message handled early");
    }

    @Test
    void anExhaustedPoolThrowsItsNamedPreallocatedError() {
        thread = new RtHandlerThread("pool-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        RtHandler h = new RtHandler(thread.getLooper(), "sensor-handler", 3);
        RtMessage a = h.obtainMessage();
        h.obtainMessage();
        h.obtainMessage();
        MessagePoolExhaustedException e1 = assertThrows(MessagePoolExhaustedException.class, h::obtainMessage);
        MessagePoolExhaustedException e2 = assertThrows(MessagePoolExhaustedException.class, () -> h.obtainMessage(7));
        assertSame(e1, e2, "the error is pre-allocated, not created per failure");
        assertTrue(e1.getMessage().contains("'sensor-handler'") && e1.getMessage().contains("pool of 3"), e1.getMessage());
        assertNull(h.tryObtainMessage());
        assertEquals(3, h.exhaustedCount());
        a.recycle();
        RtMessage again = h.obtainMessage();
        assertSame(a, again, "recycled message is reused");
    }

    @Test
    void aMessageCannotBeSentTwiceOrThroughAnotherHandler() {
        thread = new RtHandlerThread("misuse-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        RtHandler h = new RtHandler(thread.getLooper(), "one", 4);
        RtHandler other = new RtHandler(thread.getLooper(), "two", 4);
        RtMessage m = h.obtainMessage();
        assertThrows(IllegalArgumentException.class, () -> other.sendMessage(m));
        thread.getLooper().quit();
        assertFalse(h.sendMessage(m), "a quitting looper refuses messages");
        assertThrows(IllegalStateException.class, () -> h.sendMessage(m), "the refused message went back to the pool");
    }

    @Test
    void steadyStateSendAndReceiveAllocatesNothing() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] checksum = new long[1];
        thread = new RtHandlerThread("alloc-looper", 0, MessagePolicy.INHERITANCE);
        thread.start();
        RtLooper looper = thread.getLooper();
        RtHandler h = new RtHandler(looper, "alloc", 256, 2, 16, m -> checksum[0] += m.data[0] + m.arg1 + m.bytes[3]);
        long[] senderBytes = new long[1];
        IntConsumer send = n -> { // IntConsumer: a boxed count would itself allocate
            for (int i = 0; i < n; i++) {
                RtMessage m;
                while ((m = h.tryObtainMessage()) == null) {
                    Thread.onSpinWait();
                }
                m.what = 1;
                m.arg1 = i;
                m.data[0] = System.nanoTime();
                m.bytes[3] = (byte) i;
                h.sendMessage(m);
            }
        };
        // This thread sends; a window's looper baseline is read when the previous window's messages
        // are all handled, never while messages are in flight.
        long tid = Thread.currentThread().threadId();
        long looperTid = looper.getThread().threadId();
        long[] sent = {0};
        long[] bytes = new long[2]; // this window's sender and looper bytes
        AllocationWindows.warmUp(() -> window(mx, send, 20_000, looper, sent, bytes, tid, looperTid));
        StringBuilder windows = new StringBuilder();
        long both = AllocationWindows.measure(windows, () -> window(mx, send, 100_000, looper, sent, bytes, tid, looperTid));
        assertEquals(0, both, "bytes the sender and the looper thread allocated over windows of 100,000 messages "
                + "(last: sender " + bytes[0] + ", looper " + bytes[1] + "): " + windows);
        assertTrue(checksum[0] != 0);
    }
}
