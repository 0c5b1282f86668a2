package org.rtdroid.runtime.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

class AsyncEventTest {
    /** SCHED_FIFO where the process may, else SCHED_OTHER (the tests that read priorities assume FIFO). */
    private static final IntFunction<RealtimePolicy> FIFO = RealtimePolicy::fifo;

    /** A handler that records, from the kernel, the policy and priority of the thread running it. */
    static final class Recording extends AsyncEventHandler {
        final int[] order;
        final AtomicInteger next;
        volatile int seenPolicy = -1;
        volatile int seenPriority = -1;

        Recording(String name, int priority, int[] order, AtomicInteger next) {
            super(name, priority);
            this.order = order;
            this.next = next;
        }

        @Override
        public void handleAsyncEvent() {
            seenPolicy = Linux.currentPolicy();
            seenPriority = Linux.currentPriority();
            if (order != null) {
                order[next.getAndIncrement()] = priority();
            }
        }
    }

    /** Holds the thread that runs it until the test opens the gate. */
    static final class Blocker extends AsyncEventHandler {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

        Blocker(int priority) { super("blocker", priority); }

        @Override
        public void handleAsyncEvent() {
            entered.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void awaitRuns(AsyncEventHandler h, long runs) {
        while (h.runs() < runs) {
            Thread.onSpinWait();
        }
    }

    private static void assumeFifo() {
        assumeTrue(RealtimeThreads.schedFifoPermitted(), "needs SCHED_FIFO (root or CAP_SYS_NICE)");
    }

    @Test
    void boundHandlersRunOnTheirOwnThreadAtTheirOwnPriorityAsTheKernelReportsIt() throws Exception {
        assumeFifo();
        HandlerDispatcher d = HandlerDispatcher.create("bound", HandlerStrategy.BOUND, 0, 2, FIFO);
        try {
            Recording low = new Recording("low", 11, null, null);
            Recording high = new Recording("high", 23, null, null);
            d.attach(low);
            d.attach(high);
            AsyncEvent e = new AsyncEvent("e", 2);
            e.addHandler(low);
            e.addHandler(high);
            e.fire();
            e.fire();
            awaitRuns(low, 2);
            awaitRuns(high, 2);
            assertEquals(2, d.threadCount(), "one thread per handler");
            assertEquals(Linux.SCHED_FIFO, low.seenPolicy);
            assertEquals(11, low.seenPriority, "low handler's thread priority read from the kernel");
            assertEquals(Linux.SCHED_FIFO, high.seenPolicy);
            assertEquals(23, high.seenPriority, "high handler's thread priority read from the kernel");
            assertEquals(2, e.fires());
        } finally {
            d.stop();
        }
    }

    @Test
    void aPoolThreadTakesThePriorityOfTheHandlerItRunsAsTheKernelReportsIt() throws Exception {
        assumeFifo();
        HandlerDispatcher d = HandlerDispatcher.create("pool", HandlerStrategy.POOLED, 1, 3, FIFO);
        try {
            Recording a = new Recording("a", 12, null, null);
            Recording b = new Recording("b", 31, null, null);
            Recording c = new Recording("c", 17, null, null);
            for (AsyncEventHandler h : new AsyncEventHandler[] {a, b, c}) {
                d.attach(h);
                AsyncEvent e = new AsyncEvent(h.name(), 1);
                e.addHandler(h);
                e.fire();
                awaitRuns(h, 1);
            }
            assertEquals(1, d.threadCount());
            assertEquals(Linux.SCHED_FIFO, a.seenPolicy);
            assertEquals(12, a.seenPriority);
            assertEquals(31, b.seenPriority);
            assertEquals(17, c.seenPriority, "the one pool thread came down from 31 to 17 for this handler");
        } finally {
            d.stop();
        }
    }

    @Test
    void aSaturatedPoolRunsQueuedHandlersByPriorityNotByArrivalAndCountsTheSaturation() throws Exception {
        PooledDispatcher d = (PooledDispatcher) HandlerDispatcher.create("pool", HandlerStrategy.POOLED, 1, 6, null);
        try {
            Blocker blocker = new Blocker(50);
            d.attach(blocker);
            int[] order = new int[8];
            AtomicInteger next = new AtomicInteger();
            Recording p10 = new Recording("p10", 10, order, next);
            Recording p30 = new Recording("p30", 30, order, next);
            Recording p20 = new Recording("p20", 20, order, next);
            Recording p30b = new Recording("p30b", 30, order, next);
            Recording p5 = new Recording("p5", 5, order, next);
            AsyncEvent occupy = new AsyncEvent("occupy", 1);
            d.attach(p10);
            d.attach(p30);
            d.attach(p20);
            d.attach(p30b);
            d.attach(p5);
            occupy.addHandler(blocker);
            AsyncEvent burst = new AsyncEvent("burst", 5);
            burst.addHandler(p10);
            burst.addHandler(p5);
            burst.addHandler(p30);
            burst.addHandler(p20);
            burst.addHandler(p30b);

            occupy.fire();
            blocker.entered.await();               // the pool's only thread is busy
            long before = d.saturatedReleases();
            burst.fire();                           // arrival order 10, 5, 30, 20, 30
            burst.fire();                           // each handler owed a second run
            assertEquals(10, d.saturatedReleases() - before, "every release found the pool busy");
            blocker.gate.countDown();
            for (Recording r : new Recording[] {p10, p30, p20, p30b, p5}) {
                awaitRuns(r, 2);
            }
            // Highest first; equal priorities in release order; a handler's second run re-queues
            // behind releases of its own priority already waiting.
            assertArrayEquals(new int[] {30, 30, 30, 30, 20, 20, 10, 10}, java.util.Arrays.copyOf(order, 8));
        } finally {
            d.stop();
        }
    }

    @Test
    void firingCountsEveryReleaseAndABoundHandlerRunsOncePerFiring() throws Exception {
        HandlerDispatcher d = HandlerDispatcher.create("bound", HandlerStrategy.BOUND, 0, 1, null);
        try {
            Blocker blocker = new Blocker(40);
            d.attach(blocker);
            AsyncEvent e = new AsyncEvent("e", 1);
            e.addHandler(blocker);
            e.fire();
            blocker.entered.await();
            e.fire();
            e.fire();
            assertEquals(2, blocker.pendingFireCount(), "firings while the handler runs are owed, not lost");
            blocker.gate.countDown();
            awaitRuns(blocker, 3);
            assertEquals(0, blocker.pendingFireCount());
        } finally {
            d.stop();
        }
    }

    @Test
    void firingAllocatesNothingInSteadyStateBound() throws Exception {
        assertZeroAllocation(HandlerStrategy.BOUND);
    }

    @Test
    void firingAllocatesNothingInSteadyStatePooled() throws Exception {
        assertZeroAllocation(HandlerStrategy.POOLED);
    }

    /** Counts runs; the firer waits for them without a clock. */
    static final class Counting extends AsyncEventHandler {
        long sum;

        Counting(String name, int priority) { super(name, priority); }

        @Override
        public void handleAsyncEvent() { sum += priority(); }
    }

    private static void assertZeroAllocation(HandlerStrategy strategy) throws Exception {
        assertTrue(HeapMeter.supported(), "this JVM must measure per-thread allocation");
        HandlerDispatcher d = HandlerDispatcher.create("alloc", strategy, 2, 3, null);
        try {
            Counting[] hs = {new Counting("h1", 10), new Counting("h2", 20), new Counting("h3", 30)};
            AsyncEvent e = new AsyncEvent("e", 3);
            for (Counting h : hs) {
                d.attach(h);
                e.addHandler(h);
            }
            long[] fired = {0};
            Runnable rounds = () -> {
                for (int i = 0; i < 2_000; i++) {
                    e.fire();
                    fired[0]++;
                    for (Counting h : hs) {
                        awaitRuns(h, fired[0]);
                    }
                }
            };
            for (int w = 0; w < 10; w++) {
                rounds.run();
            }
            Thread[] threads = d.threads();
            long measured = -1;
            long handlerBytes = -1;
            // A one-off deoptimisation after warm-up can still allocate: up to three windows, one
            // must be clean (a real per-firing allocation shows in each).
            for (int w = 0; w < 3 && (measured != 0 || handlerBytes != 0); w++) {
                long[] before = new long[threads.length];
                for (int i = 0; i < threads.length; i++) {
                    before[i] = HeapMeter.threadAllocatedBytes(threads[i].threadId());
                }
                long mine = HeapMeter.currentThreadAllocatedBytes();
                rounds.run();
                measured = HeapMeter.currentThreadAllocatedBytes() - mine;
                handlerBytes = 0;
                for (int i = 0; i < threads.length; i++) {
                    handlerBytes += HeapMeter.threadAllocatedBytes(threads[i].threadId()) - before[i];
                }
            }
            assertEquals(0, measured, strategy + ": bytes allocated by the firing thread over 2,000 firings");
            assertEquals(0, handlerBytes, strategy + ": bytes allocated by the handler threads over 2,000 firings");
        } finally {
            d.stop();
        }
    }
}
