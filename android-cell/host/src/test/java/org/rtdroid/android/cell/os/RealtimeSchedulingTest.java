package org.rtdroid.android.cell.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * A board's {@code realtime_threads: false} ({@code --realtime-threads off}) keeps every thread
 * of the cell at SCHED_OTHER, as the kernel reports it; SCHED_OTHER itself is always allowed.
 * Policy changes allocate nothing once a thread made its first few hundred, JIT-compiled or not,
 * and a refused one names its errno.
 */
class RealtimeSchedulingTest {
    @Test
    void offByTheBoardRefusesRealtimePoliciesAndTheThreadStaysSchedOther() throws Exception {
        String before = System.getProperty(RealtimeScheduling.PROP_REALTIME_THREADS);
        System.setProperty(RealtimeScheduling.PROP_REALTIME_THREADS, "off");
        try {
            AtomicReference<String> seen = new AtomicReference<>();
            Thread t = new Thread(() -> {
                int rc = RealtimeScheduling.set(0, RealtimeScheduling.SCHED_FIFO, RealtimeScheduling.DELIVERY_PRIORITY);
                int back = RealtimeScheduling.set(0, RealtimeScheduling.SCHED_OTHER, 0);
                seen.set(rc + " " + back + " " + RealtimeScheduling.describe(RealtimeScheduling.tid()));
            });
            t.start();
            t.join();
            assertEquals(RealtimeScheduling.OFF_BY_BOARD + " 0 SCHED_OTHER", seen.get());
        } finally {
            if (before == null) {
                System.clearProperty(RealtimeScheduling.PROP_REALTIME_THREADS);
            } else {
                System.setProperty(RealtimeScheduling.PROP_REALTIME_THREADS, before);
            }
        }
    }

    @Test
    void policyChangesAllocateNothingBeforeTheJitCompilesThem() throws Exception {
        // The looper is lifted and dropped around real-time deliveries and lent a priority by the
        // delivery thread: a path run a few hundred times, interpreted. Measured cold on a new
        // thread, windows of 300 calls: after the JDK's one-time method-handle set-up (~600
        // calls), one of six must be clean. Capturing errno on each call allocated 40 bytes a call.
        long[] windows = new long[6];
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
                long self = Thread.currentThread().threadId();
                int tid = RealtimeScheduling.tid();
                for (int w = 0; w < windows.length; w++) {
                    long before = mx.getThreadAllocatedBytes(self);
                    int errors = 0;
                    for (int i = 0; i < 150; i++) {
                        errors += RealtimeScheduling.set(tid, RealtimeScheduling.SCHED_OTHER, 0);
                        errors += RealtimeScheduling.set(0, RealtimeScheduling.SCHED_OTHER, 0);
                    }
                    windows[w] = mx.getThreadAllocatedBytes(self) - before;
                    assertEquals(0, errors);
                    if (windows[w] == 0) {
                        break;
                    }
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        assertTrue(Arrays.stream(windows).anyMatch(b -> b == 0),
                "bytes allocated per window of 300 cold sched_setscheduler calls: " + Arrays.toString(windows));
    }

    @Test
    void aRefusedChangeNamesItsErrno() {
        assertEquals(22 /* EINVAL */, RealtimeScheduling.set(RealtimeScheduling.tid(), RealtimeScheduling.SCHED_FIFO, 1_000));
    }
}
