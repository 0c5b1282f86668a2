package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * Deploying an application must not stall the ones already running: its start-up (class loading,
 * cold code; here a 60 ms busy onCreate) runs at the cell's lowest priority, so a running task of
 * lower priority than the new component keeps being released meanwhile. Real SCHED_FIFO on one
 * CPU; skipped where that is not permitted.
 */
class DeployIsolationTest {
    private RuntimeHost host;

    @AfterEach
    void tearDown() {
        if (host != null) {
            host.shutdown();
        }
    }

    public static final class Running extends RealtimeService {
        static volatile long releases;

        @Override
        public void onStartCommand() {
            registerTask("tick", new PeriodicTask() {
                @Override
                public void onRelease() {
                    releases++;
                }
            });
        }
    }

    /** A high-priority service whose start-up keeps the CPU busy for 60 ms. */
    public static final class SlowStart extends RealtimeService {
        static volatile long releasesBefore = -1;
        static volatile long releasesAfter = -1;
        static volatile int startupPriority = -1;
        static volatile int startupPolicy = -1;

        @Override
        public void onCreate() {
            startupPriority = Linux.currentPriority();
            startupPolicy = Linux.currentPolicy();
            releasesBefore = Running.releases;
            long end = System.nanoTime() + 60_000_000L;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            releasesAfter = Running.releases;
        }
    }

    @Test
    void aSlowStartingHighPriorityAppDoesNotStallARunningLowerPriorityTask() throws Exception {
        assumeTrue(RealtimeThreads.schedFifoPermitted(), "SCHED_FIFO is not permitted here (needs root or CAP_SYS_NICE)");
        int[] cpus = Linux.currentAffinity().toArray();
        assumeTrue(cpus.length >= 2, "needs 2 CPUs: one for the cell, one for the test thread");
        host = RuntimeHost.start(new CellConfig(CpuSet.of(cpus[cpus.length - 1]), 64L << 20, 1, 98, true, false, 1024));
        String mem = "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>";
        Apps.deploy(host, "running", Apps.service(Running.class, 20, mem, Apps.task("tick", "1ms", "4K")));
        Apps.await("the running task is released", 5_000, () -> Running.releases > 50);
        Apps.deploy(host, "slow", Apps.service(SlowStart.class, 90, "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>", ""));
        long during = SlowStart.releasesAfter - SlowStart.releasesBefore;
        System.out.println("deploy isolation: " + during + " releases of the running 1 ms task during the 60 ms start-up"
                + " of a priority-90 service (started at priority " + SlowStart.startupPriority + ")");
        // Not at any SCHED_FIFO priority: at the cell's lowest it would starve the JVM's own threads.
        assertEquals(Linux.SCHED_OTHER, SlowStart.startupPolicy, "start-up ran under policy " + SlowStart.startupPolicy
                + " at priority " + SlowStart.startupPriority);
        // At priority 90 the start-up would have held the CPU: 0 releases. SCHED_OTHER: ~60.
        assertTrue(during >= 30, "the running task was released only " + during + " times in 60 ms");
    }
}
