package org.rtdroid.runtime.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class LinuxTest {

    @Test
    void monotonicClockIsTheSameTimeBaseAsNanoTime() {
        long before = System.nanoTime();
        long mono = Linux.monotonicNanos();
        long after = System.nanoTime();
        // HotSpot's nanoTime is CLOCK_MONOTONIC on Linux: absolute deadlines can mix both.
        assertTrue(mono >= before && mono <= after, "monotonic " + mono + " not within [" + before + ", " + after + "]");
    }

    @Test
    void threadCpuClockCountsSpinningButNotSleeping() {
        // Spins until its own clock shows 10 ms of CPU: how much wall-clock time that takes depends
        // on how busy the machine is, which is the point of a per-thread CPU clock. The wall-clock
        // limit only turns a clock that never advances into a failure instead of a hang.
        long cpu0 = Linux.threadCpuNanos();
        long giveUp = System.nanoTime() + 60_000_000_000L;
        long cpu1 = cpu0;
        while (cpu1 - cpu0 < 10_000_000 && System.nanoTime() < giveUp) {
            Thread.onSpinWait();
            cpu1 = Linux.threadCpuNanos();
        }
        assertTrue(cpu1 - cpu0 >= 10_000_000, "60 s of spinning counted only " + (cpu1 - cpu0) + " ns");
        assertEquals(0, Linux.sleepUntilNanos(Linux.monotonicNanos() + 50_000_000));
        long cpu2 = Linux.threadCpuNanos();
        assertTrue(cpu2 - cpu1 < 25_000_000, "50 ms asleep counted " + (cpu2 - cpu1) + " ns of CPU");
    }

    @Test
    void anotherThreadsCpuClockIsReadableByItsTid() throws Exception {
        int[] tid = new int[1];
        long[] ownClock = new long[1];
        Thread t = new Thread(() -> {
            tid[0] = Linux.gettid();
            long spinUntil = System.nanoTime() + 20_000_000;
            while (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            ownClock[0] = Linux.threadCpuNanos();
            Linux.sleepUntilNanos(Linux.monotonicNanos() + 200_000_000);
        });
        t.start();
        while (ownClock[0] == 0) {
            Thread.sleep(1);
        }
        long seen = Linux.threadCpuNanosOf(tid[0]);
        // The same clock, read from outside while the thread sleeps.
        assertTrue(seen >= ownClock[0] && seen - ownClock[0] < 10_000_000,
                "thread " + tid[0] + ": its own clock " + ownClock[0] + " ns, read from outside " + seen + " ns");
        t.join();
        // init's thread is not one of this process's: the kernel refuses its per-thread clock.
        assertEquals(-1, Linux.threadCpuNanosOf(1));
    }

    @Test
    void sleepUntilReturnsNoEarlierThanTheDeadline() {
        for (int i = 0; i < 20; i++) {
            long deadline = Linux.monotonicNanos() + 200_000;
            assertEquals(0, Linux.sleepUntilNanos(deadline));
            assertTrue(Linux.monotonicNanos() >= deadline, "woke before the absolute deadline");
        }
    }

    @Test
    void sleepUntilAPastDeadlineReturnsAtOnceAndANegativeOneIsRejected() {
        assertEquals(0, Linux.sleepUntilNanos(Linux.monotonicNanos() - 1_000_000));
        assertEquals(Errno.EINVAL, Linux.sleepUntilNanos(-5));
    }

    @Test
    void fifoPriorityRangeIsLinuxs() {
        assertEquals(1, Linux.priorityMin(Linux.SCHED_FIFO));
        assertEquals(99, Linux.priorityMax(Linux.SCHED_FIFO));
        assertEquals(0, Linux.priorityMax(Linux.SCHED_OTHER));
    }

    @Test
    void timerSlackCanBeSetToOneNanosecondOnThisThread() throws Exception {
        long[] slack = new long[2];
        Thread t = new Thread(() -> {
            slack[0] = Linux.setTimerSlackNanos(1);
            slack[1] = Linux.timerSlackNanos();
        });
        t.start();
        t.join();
        assertEquals(0, slack[0], "prctl(PR_SET_TIMERSLACK) errno");
        assertEquals(1, slack[1]);
    }

    @Test
    void affinityRoundTripsOnThisThread() throws Exception {
        Object[] out = new Object[3];
        Thread t = new Thread(() -> {
            CpuSet allowed = Linux.currentAffinity();
            CpuSet one = CpuSet.of(allowed.first());
            out[0] = Linux.setAffinity(one);
            out[1] = Linux.currentAffinity();
            out[2] = one;
        });
        t.start();
        t.join();
        assertEquals(0, out[0]);
        assertEquals(out[2], out[1]);
    }

    @Test
    void anOfflineCpuIsRefusedWithEinval() throws Exception {
        int[] err = new int[1];
        Thread t = new Thread(() -> err[0] = Linux.setAffinity(CpuSet.of(CpuSet.MAX_CPUS - 1)));
        t.start();
        t.join();
        assertEquals(Errno.EINVAL, err[0]);
    }

    private static long clockAndSleep(int n) {
        long sink = 0;
        for (int i = 0; i < n; i++) {
            sink += Linux.monotonicNanos();
            Linux.sleepUntilNanos(0);
        }
        return sink;
    }

    @Test
    void clockAndSleepAllocateNothingAfterTheFirstCall() {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long sink = 0;
        // Warm up with many short calls so the JIT compiles clockAndSleep itself (an OSR transition
        // in the measured call could otherwise materialize a few hundred bytes once).
        for (int i = 0; i < 4_000; i++) {
            sink += clockAndSleep(25);
        }
        // A one-off deoptimisation can still allocate: up to three windows, one must be clean (a real
        // per-call allocation shows in each).
        StringBuilder windows = new StringBuilder();
        long allocated = -1;
        for (int w = 0; w < 3 && allocated != 0; w++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 2_000; i++) {
                sink += clockAndSleep(50);
            }
            allocated = mx.getThreadAllocatedBytes(tid) - before;
            windows.append(w == 0 ? "" : ", ").append(allocated);
        }
        assertTrue(sink != 0);
        assertEquals(0, allocated, "bytes allocated by windows of 100,000 clock_gettime + clock_nanosleep calls: " + windows);
    }

    @Test
    void priorityAndAffinityChangesAllocateNothingBeforeTheJitCompilesThem() throws Exception {
        // A pooled handler's thread takes each handler's priority and CPU; the bench's RT looper follows its
        // most urgent message. Those paths may run a few hundred times only, interpreted: measured
        // cold, on a new thread (its native buffers made by the first call), in windows of 300
        // calls, no JIT warm-up first. The first ~600 calls allocate once (the JDK spinning its
        // method-handle forms); then one window of six must be clean. Capturing errno on every
        // call allocated 40 bytes per call in every window (12,000 per window, measured).
        long[] windows = new long[6];
        Throwable[] failed = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
                long self = Thread.currentThread().threadId();
                int tid = Linux.gettid();
                CpuSet allowed = Linux.currentAffinity();
                assertEquals(0, Linux.setSchedulerOf(tid, Linux.SCHED_OTHER, 0));
                assertEquals(0, Linux.setAffinity(allowed));
                for (int w = 0; w < windows.length; w++) {
                    long before = mx.getThreadAllocatedBytes(self);
                    int errors = 0;
                    for (int i = 0; i < 100; i++) {
                        errors += Linux.setSchedulerOf(tid, Linux.SCHED_OTHER, 0);
                        errors += Linux.setScheduler(Linux.SCHED_OTHER, 0);
                        errors += Linux.setAffinity(allowed);
                    }
                    windows[w] = mx.getThreadAllocatedBytes(self) - before;
                    assertEquals(0, errors);
                    if (windows[w] == 0) {
                        break; // one clean window: a per-call allocation shows in every one
                    }
                }
            } catch (Throwable e) {
                failed[0] = e;
            }
        }, "cold-scheduling-calls");
        t.start();
        t.join();
        if (failed[0] != null) {
            throw new AssertionError(failed[0]);
        }
        assertTrue(java.util.Arrays.stream(windows).anyMatch(b -> b == 0),
                "bytes allocated per window of 300 cold sched_setscheduler / sched_setaffinity calls: "
                        + java.util.Arrays.toString(windows));
    }

    @Test
    void aRefusedPriorityChangeStillNamesItsErrno() throws Exception {
        // Only a failed call captures errno (it is repeated with capture): the caller still learns why.
        assertEquals(Errno.EINVAL, Linux.setSchedulerOf(Linux.gettid(), Linux.SCHED_FIFO, 1_000));
    }

    @Test
    void errnoMessagesReadLikeStrerror() {
        assertEquals("Operation not permitted (EPERM)", Errno.describe(Errno.EPERM));
        assertEquals("Invalid argument (EINVAL)", Errno.describe(Errno.EINVAL));
        // Not in the table: libc's strerror text, with the number.
        assertEquals("No such file or directory (errno 2)", Errno.describe(2));
    }

    @Test
    void rtprioLimitIsReadable() {
        long limit = Linux.rtprioSoftLimit();
        assertTrue(limit == -1 || limit >= 0, "RLIMIT_RTPRIO " + limit);
    }
}
