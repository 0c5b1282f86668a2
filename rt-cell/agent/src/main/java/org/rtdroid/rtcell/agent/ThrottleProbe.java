package org.rtdroid.rtcell.agent;

import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;

/**
 * Measures, once at start-up, how long a SCHED_FIFO thread spinning on a CPU keeps a runnable
 * SCHED_OTHER thread of that CPU from running. The kernel's real-time throttle bounds it
 * (kernel.sched_rt_runtime_us of every sched_rt_period_us go to real-time tasks). HotSpot has
 * waits in which a thread spins on another without yielding (ZGC's live-map reset is one): a
 * real-time thread caught in one holds its CPU, and a safepoint pending meanwhile holds every
 * other Java thread of the cell, until this bound lets the other thread in. The board files set
 * the bound on the RT cell's kernel command line; this shows the kernel keeps it.
 *
 * <p>Probed only when the period is at most {@link #MAX_PROBED_PERIOD_US}: under Linux's default
 * (950 ms of every second) the probe itself would hold its CPU for most of a second, as on the
 * host board, whose kernel is the host's.
 */
final class ThrottleProbe {
    static final long MAX_PROBED_PERIOD_US = 10_000;
    /** The spinner gives up after this long (the throttle then does not hold what it says). */
    static final long GIVE_UP_NANOS = 200_000_000L;

    private static volatile String result = "not probed";

    private volatile boolean pinned;
    private volatile boolean go;
    private volatile long ranAt;

    private ThrottleProbe() {
    }

    /** What the last probe found, for HELLO: "starved thread ran after N us", or why there is no figure. */
    static String result() {
        return result;
    }

    /** Probes on the first of the cell's CPUs; returns the console line. */
    static String run(CpuSet cpus) {
        long[] throttle = Agent.kernelRtThrottleUs();
        if (throttle == null) {
            result = "not probed (no real-time throttle in /proc/sys/kernel)";
        } else if (throttle[1] > MAX_PROBED_PERIOD_US) {
            result = "not probed (period " + throttle[1] + " us: the spin would last ~" + throttle[0] / 1000 + " ms)";
        } else {
            result = new ThrottleProbe().probe(cpus.first(), throttle);
        }
        return "rtcell: real-time throttle " + Agent.throttleText(throttle) + ": " + result;
    }

    private String probe(int cpu, long[] throttle) {
        CpuSet one = CpuSet.of(cpu);
        String[] failure = new String[1];
        // Created by this SCHED_OTHER thread, so both start SCHED_OTHER (a thread inherits its
        // creator's policy); the starved one spins on `go` until it sees it, which it can only
        // do once the kernel takes the CPU from the SCHED_FIFO spinner.
        Thread starved = new Thread(() -> {
            if (Linux.setAffinity(one) != 0) {
                failure[0] = "the starved thread could not be pinned to CPU " + cpu;
                go = true;
            }
            pinned = true;
            while (!go) {
                Thread.onSpinWait();
            }
            ranAt = System.nanoTime();
        }, "rtcell-throttle-starved");
        long[] elapsed = {-1};
        Thread spinner = new Thread(() -> {
            while (!pinned) { // on another CPU, the starved thread would see `go` at once
                Thread.onSpinWait();
            }
            int errno = Linux.setAffinity(one);
            if (errno == 0) {
                errno = Linux.setScheduler(Linux.SCHED_FIFO, 1);
            }
            if (errno != 0) {
                failure[0] = "SCHED_FIFO 1 on CPU " + cpu + " refused (errno " + errno + ")";
                go = true;
                return;
            }
            long t0 = System.nanoTime();
            go = true;
            while (ranAt == 0 && System.nanoTime() - t0 < GIVE_UP_NANOS) {
                Thread.onSpinWait();
            }
            Linux.setScheduler(Linux.SCHED_OTHER, 0);
            elapsed[0] = ranAt == 0 ? -1 : ranAt - t0;
        }, "rtcell-throttle-spinner");
        starved.setDaemon(true);
        starved.start();
        spinner.start();
        try {
            spinner.join();
            starved.join(GIVE_UP_NANOS / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not probed (interrupted)";
        }
        if (failure[0] != null) {
            return "not probed (" + failure[0] + ")";
        }
        if (elapsed[0] < 0) {
            return "starved thread did not run within " + GIVE_UP_NANOS / 1_000_000 + " ms of a SCHED_FIFO spin on CPU "
                    + cpu + " (period " + throttle[1] + " us)";
        }
        return "starved thread ran after " + elapsed[0] / 1000 + " us of a SCHED_FIFO spin on CPU " + cpu;
    }
}
