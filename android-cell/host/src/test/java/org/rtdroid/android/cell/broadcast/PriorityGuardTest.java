package org.rtdroid.android.cell.broadcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The broadcast queue's guard: release hands it to the most urgent waiter, first come among
 * equals. Waiters are lined up one by one (each is parked before the next starts), never timed.
 */
class PriorityGuardTest {
    private final PriorityGuard guard = new PriorityGuard(8);
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());

    private Thread waiter(String name, int priority, int waitingAfter) {
        Thread t = new Thread(() -> {
            guard.acquire(priority);
            order.add(name);
            guard.release();
        }, name);
        t.start();
        while (guard.waiting() < waitingAfter) {
            Thread.onSpinWait();
        }
        return t;
    }

    @Test
    void releaseHandsTheGuardToTheMostUrgentWaiterThenFirstCome() throws InterruptedException {
        guard.acquire(0);
        List<Thread> ts = List.of(waiter("low-1", 1, 1), waiter("low-2", 1, 2), waiter("mid", 5, 3),
                waiter("high", 9, 4), waiter("low-3", 1, 5));
        guard.release();
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(List.of("high", "mid", "low-1", "low-2", "low-3"), order);
        assertEquals(0, guard.waiting());
    }

    @Test
    void onlyTheHolderMayRelease() {
        assertThrows(IllegalMonitorStateException.class, guard::release);
    }

    @Test
    void anUncontendedAcquireAndReleaseAllocateNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long[] windows = new long[3];
        for (int w = 0; w < windows.length; w++) { // one clean window of three (JIT, first use)
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                guard.acquire(i % 100);
                guard.release();
            }
            windows[w] = mx.getThreadAllocatedBytes(tid) - before;
            if (windows[w] == 0) {
                return;
            }
        }
        assertTrue(false, "bytes allocated per window of 100,000 acquire/release: " + java.util.Arrays.toString(windows));
    }
}
