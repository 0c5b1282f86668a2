package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * A board's {@code realtime_threads: false} ({@code --realtime-threads off}) keeps every thread
 * of the cell at SCHED_OTHER, as the kernel reports it; SCHED_OTHER itself is always allowed.
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
}
