package org.rtdroid.runtime.os;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Makes threads real-time (SCHED_FIFO, pinned, 1 ns timer slack) and memory locked, and keeps going
 * where the process may not: without CAP_SYS_NICE, in a container, or with RLIMIT_RTPRIO 0, threads
 * run SCHED_OTHER and one clear warning per degraded capability is printed once per process, e.g.
 * {@code rtdroid: SCHED_FIFO not permitted (EPERM): real-time threads run SCHED_OTHER; latency is
 * not bounded}. {@link #warnings()} and {@link #currentThread()} report what was really applied.
 *
 * <p>Real-time threads are set SCHED_RESET_ON_FORK, so threads they create (helpers, noise in a
 * benchmark) start SCHED_OTHER rather than silently inheriting a real-time priority.
 */
public final class RealtimeThreads {
    /** Degradation kinds, each warned about at most once per process. */
    public static final String SCHED_FIFO = "sched_fifo";
    public static final String AFFINITY = "affinity";
    public static final String TIMER_SLACK = "timer_slack";
    public static final String MLOCKALL = "mlockall";
    public static final String CPU_DMA_LATENCY = "cpu_dma_latency";

    /** The PM QoS request stays in force while this file is open (see the kernel's pm_qos docs). */
    private static final String CPU_DMA_LATENCY_FILE = "/dev/cpu_dma_latency";
    private static java.io.FileOutputStream cpuLatencyRequest;

    private static final Map<String, String> WARNINGS = new ConcurrentHashMap<>();
    private static volatile Consumer<String> warningSink = System.err::println;
    private static volatile Boolean memoryLocked;
    private static volatile Boolean fifoPermitted;

    /** Per thread: the real-time priority it declared, or -1 until known. int[] so reads never box. */
    private static final ThreadLocal<int[]> DECLARED = ThreadLocal.withInitial(() -> new int[] {-1});

    private RealtimeThreads() {}

    /** Waits up to {@code millis} for {@code t} to end (null: no thread, so it has). @return whether it has */
    public static boolean join(Thread t, long millis) throws InterruptedException {
        if (t == null) {
            return true;
        }
        t.join(millis);
        return !t.isAlive();
    }

    /**
     * The real-time priority the calling thread declared through {@link #applyToCurrentThread}
     * (whether or not the kernel granted it), else the priority the kernel reports (e.g. set with
     * chrt), else 0. This is the priority a message sent by this thread inherits, so message order
     * stays right where SCHED_FIFO is not permitted. Allocation-free after the thread's first call.
     */
    public static int declaredPriority() {
        int[] d = DECLARED.get();
        if (d[0] < 0) {
            int policy = Linux.currentPolicy();
            d[0] = policy == Linux.SCHED_FIFO || policy == Linux.SCHED_RR ? Linux.currentPriority() : 0;
        }
        return d[0];
    }

    /**
     * Applies {@code policy} to the calling thread, as far as the process is permitted.
     *
     * @return what the kernel reports for this thread afterwards, with what was degraded
     */
    public static AppliedPolicy applyToCurrentThread(RealtimePolicy policy) {
        StringBuilder degraded = new StringBuilder();
        DECLARED.get()[0] = policy.fifoPriority();
        if (policy.fifoPriority() > 0) {
            int err = Linux.setScheduler(Linux.SCHED_FIFO | Linux.SCHED_RESET_ON_FORK, policy.fifoPriority());
            if (err != 0) {
                String why = "SCHED_FIFO " + policy.fifoPriority() + " not permitted (" + Errno.name(err) + ")";
                append(degraded, why);
                warnOnce(SCHED_FIFO, "rtdroid: SCHED_FIFO not permitted (" + Errno.name(err) + "): real-time threads run "
                        + "SCHED_OTHER; latency is not bounded (needs CAP_SYS_NICE or RLIMIT_RTPRIO >= "
                        + policy.fifoPriority() + ", now " + rtprioLimitText() + ")");
                if (fifoPermitted == null && err == Errno.EPERM) {
                    fifoPermitted = Boolean.FALSE;
                }
            } else {
                fifoPermitted = Boolean.TRUE;
            }
        } else {
            int current = Linux.currentPolicy();
            if (current == Linux.SCHED_FIFO || current == Linux.SCHED_RR) {
                // Asked for SCHED_OTHER while real-time (e.g. inherited): lowering needs no privilege.
                int err = Linux.setScheduler(Linux.SCHED_OTHER, 0);
                if (err != 0) {
                    append(degraded, "SCHED_OTHER refused (" + Errno.name(err) + ")");
                }
            }
        }
        if (policy.cpus() != null) {
            int err = Linux.setAffinity(policy.cpus());
            if (err != 0) {
                append(degraded, "affinity to CPUs " + policy.cpus() + " refused (" + Errno.name(err) + ")");
                warnOnce(AFFINITY, "rtdroid: CPU affinity to " + policy.cpus() + " refused (" + Errno.describe(err)
                        + "): real-time threads may run on any allowed CPU (" + Linux.currentAffinity() + ")");
            }
        }
        if (policy.timerSlackNanos() > 0) {
            int err = Linux.setTimerSlackNanos(policy.timerSlackNanos());
            if (err != 0) {
                append(degraded, "timer slack " + policy.timerSlackNanos() + " ns refused (" + Errno.name(err) + ")");
                warnOnce(TIMER_SLACK, "rtdroid: timer slack " + policy.timerSlackNanos() + " ns refused ("
                        + Errno.describe(err) + "): wake-ups may be up to " + Linux.timerSlackNanos() + " ns late");
            }
        }
        return query(degraded.toString());
    }

    /** Reads back the calling thread's policy from the kernel. */
    public static AppliedPolicy currentThread() {
        return query("");
    }

    private static AppliedPolicy query(String degraded) {
        return new AppliedPolicy(Linux.gettid(), Linux.currentPolicy(), Linux.currentPriority(),
                Linux.currentAffinity(), Linux.timerSlackNanos(), degraded);
    }

    /**
     * Creates and starts a platform thread that applies {@code policy} to itself, hands the result
     * to {@code applied} (may be null) and then runs {@code body}.
     */
    public static Thread start(String name, RealtimePolicy policy, Consumer<AppliedPolicy> applied, Runnable body) {
        Thread t = newThread(name, policy, applied, body);
        t.start();
        return t;
    }

    public static Thread start(String name, RealtimePolicy policy, Runnable body) {
        return start(name, policy, null, body);
    }

    /** Like {@link #start} but not started (set daemon, handlers, then start it). */
    public static Thread newThread(String name, RealtimePolicy policy, Consumer<AppliedPolicy> applied, Runnable body) {
        return Thread.ofPlatform().name(name).unstarted(() -> {
            AppliedPolicy a = applyToCurrentThread(policy);
            if (applied != null) {
                applied.accept(a);
            }
            body.run();
        });
    }

    /** A factory whose threads apply {@code policy} before running their task; names prefix-1, prefix-2, ... */
    public static ThreadFactory factory(String prefix, RealtimePolicy policy, boolean daemon) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = newThread(prefix + "-" + n.incrementAndGet(), policy, null, r);
            t.setDaemon(daemon);
            return t;
        };
    }

    /**
     * mlockall(MCL_CURRENT | MCL_FUTURE), once per process. Call it after the heap is committed
     * (-Xms = -Xmx, -XX:+AlwaysPreTouch) and before real-time threads start.
     *
     * @return true if memory is locked
     */
    public static synchronized boolean lockMemory() {
        if (memoryLocked == null) {
            int err = Linux.lockAll(Linux.MCL_CURRENT | Linux.MCL_FUTURE);
            memoryLocked = err == 0;
            if (err != 0) {
                warnOnce(MLOCKALL, "rtdroid: mlockall not permitted (" + Errno.describe(err)
                        + "): memory is not locked; page faults can add latency");
            }
        }
        return memoryLocked;
    }

    /**
     * Asks the kernel to keep CPU wake-up latency at 0 µs (no deep idle states) for as long as the
     * process lives, by writing 0 to /dev/cpu_dma_latency and keeping it open, as cyclictest does.
     * Deep C-states can add tens to hundreds of microseconds to a timer wake-up.
     *
     * @return true if the request is in force
     */
    public static synchronized boolean holdCpuIdleLatencyZero() {
        if (cpuLatencyRequest != null) {
            return true;
        }
        try {
            java.io.FileOutputStream out = new java.io.FileOutputStream(CPU_DMA_LATENCY_FILE);
            out.write(new byte[4]); // a binary s32 of 0 microseconds
            out.flush();
            cpuLatencyRequest = out;
            return true;
        } catch (java.io.IOException | SecurityException e) {
            warnOnce(CPU_DMA_LATENCY, "rtdroid: cannot hold " + CPU_DMA_LATENCY_FILE + " at 0 us (" + e.getMessage()
                    + "): CPUs may enter deep idle states; timer wake-ups can be later");
            return false;
        }
    }

    /** @return true if {@link #holdCpuIdleLatencyZero} is in force */
    public static synchronized boolean cpuIdleLatencyHeld() {
        return cpuLatencyRequest != null;
    }

    /** @return whether mlockall succeeded, or null if {@link #lockMemory} was not called */
    public static Boolean memoryLocked() {
        return memoryLocked;
    }

    /**
     * Whether this process may use SCHED_FIFO, found by trying it once on a short-lived probe thread
     * (so no real thread's scheduling is touched). Cached.
     */
    public static boolean schedFifoPermitted() {
        Boolean known = fifoPermitted;
        if (known != null) {
            return known;
        }
        int[] result = new int[1];
        Thread probe = Thread.ofPlatform().name("rtdroid-fifo-probe").unstarted(
                () -> result[0] = Linux.setScheduler(Linux.SCHED_FIFO | Linux.SCHED_RESET_ON_FORK,
                        Linux.priorityMin(Linux.SCHED_FIFO)));
        probe.start();
        try {
            probe.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        fifoPermitted = result[0] == 0;
        return fifoPermitted;
    }

    /** The warnings printed so far in this process, one per degraded capability. */
    public static List<String> warnings() {
        return new ArrayList<>(WARNINGS.values());
    }

    /** Where warnings go (System.err by default); for embedding in a supervisor's log. */
    public static void setWarningSink(Consumer<String> sink) {
        warningSink = sink == null ? System.err::println : sink;
    }

    /** Prints {@code message} unless a warning of this kind was already printed in this process. */
    public static void warnOnce(String kind, String message) {
        if (WARNINGS.putIfAbsent(kind, message) == null) {
            warningSink.accept(message);
        }
    }

    private static String rtprioLimitText() {
        try {
            long l = Linux.rtprioSoftLimit();
            return l == -1L ? "unlimited" : Long.toString(l);
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    private static void append(StringBuilder sb, String s) {
        if (!sb.isEmpty()) {
            sb.append("; ");
        }
        sb.append(s);
    }
}
