package org.rtdroid.bridge.rtproxy;

import java.util.function.Consumer;
import org.rtdroid.runtime.os.Linux;

/**
 * The proxy's CPU budget, enforced from outside the proxy thread.
 *
 * <p>{@link CpuBudget} is the proxy's own check, between passes. It cannot help when one pass does
 * not end: a SCHED_FIFO thread that waits, spinning, inside the JVM or the JDK for something a
 * SCHED_OTHER thread of the same CPU must do first. That thread cannot run while the FIFO thread
 * holds the CPU, so the spin goes on until the kernel lets SCHED_OTHER threads in (RT throttling,
 * or the fair-task server of newer kernels: 50 ms after 950 ms of starvation). Meanwhile the JVM's
 * own threads starve too, and real-time tasks that need one of them (at a safepoint, on a lock
 * inside the JVM) miss every release. The host board's fault suite saw such blocks of ~1 s,
 * rarely: the proxy on 99-100% of its CPU in user mode, the cochlear tasks waiting on futexes.
 *
 * <p>So a thread one priority above the proxy looks at the proxy's CPU clock every
 * {@code intervalNanos}. If the proxy ran at least {@code demoteNanos} of an interval at
 * SCHED_FIFO, it is demoted to SCHED_OTHER, where it shares the CPU with the JVM's threads and
 * whatever it waits for can happen. Once it ran at most {@code restoreNanos} of an interval (it
 * sleeps again), it gets its SCHED_FIFO priority back. A proxy within its 20% budget is never
 * demoted; a cold pass of a few ms may be, which only makes that pass fair to the JVM's threads.
 *
 * <p>The enforcer's own cost: one wake-up per interval (a clock read; no allocation). It cannot
 * catch a spin shorter than an interval, and it does not watch the real-time components: their
 * work per release is bounded by the manifest, and overruns are skipped and counted.
 */
public final class BudgetEnforcer implements Runnable {
    /** How often the enforcer looks at the proxy. */
    public static final long DEFAULT_INTERVAL_NANOS = 5_000_000L;
    /** Demote after 90% of an interval at SCHED_FIFO. */
    public static final long DEFAULT_DEMOTE_NANOS = 4_500_000L;
    /** Restore once the proxy used at most half an interval. */
    public static final long DEFAULT_RESTORE_NANOS = 2_500_000L;

    /** What one look at the proxy decided. */
    public enum Action { KEEP, DEMOTE, RESTORE }

    private final int proxyTid;
    private final int fifoPriority;
    private final long intervalNanos;
    private final long demoteNanos;
    private final long restoreNanos;
    private final ProxyStats stats;
    private final Consumer<String> log;
    private volatile boolean running = true;
    private boolean demoted;

    /**
     * @param proxyTid the proxy thread (kernel thread id), running SCHED_FIFO {@code fifoPriority}
     * @param stats where demotions are counted (budget_demotions)
     */
    public BudgetEnforcer(int proxyTid, int fifoPriority, long intervalNanos, long demoteNanos, long restoreNanos,
                          ProxyStats stats, Consumer<String> log) {
        if (intervalNanos <= 0 || demoteNanos <= 0 || demoteNanos > intervalNanos || restoreNanos < 0
                || restoreNanos >= demoteNanos) {
            throw new IllegalArgumentException("budget enforcer: need 0 <= restore (" + restoreNanos + " ns) < demote ("
                    + demoteNanos + " ns) <= interval (" + intervalNanos + " ns)");
        }
        this.proxyTid = proxyTid;
        this.fifoPriority = fifoPriority;
        this.intervalNanos = intervalNanos;
        this.demoteNanos = demoteNanos;
        this.restoreNanos = restoreNanos;
        this.stats = stats;
        this.log = log;
    }

    /**
     * The decision for one interval in which the proxy used {@code usedNanos} of CPU. Pure, so it is
     * tested without threads.
     */
    public Action decide(boolean isDemoted, long usedNanos) {
        if (!isDemoted && usedNanos >= demoteNanos) {
            return Action.DEMOTE;
        }
        if (isDemoted && usedNanos <= restoreNanos) {
            return Action.RESTORE;
        }
        return Action.KEEP;
    }

    public boolean isDemoted() {
        return demoted;
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        long last = Linux.threadCpuNanosOf(proxyTid);
        long next = Linux.monotonicNanos() + intervalNanos;
        long loggedDemotions = 0;
        while (running) {
            Linux.sleepUntilNanos(next);
            next += intervalNanos;
            long now = Linux.monotonicNanos();
            if (next < now) {
                next = now + intervalNanos; // the enforcer itself was held up: no catch-up
            }
            long cpu = Linux.threadCpuNanosOf(proxyTid);
            if (cpu < 0) {
                return; // the proxy thread has ended
            }
            long used = cpu - last;
            last = cpu;
            switch (decide(demoted, used)) {
                case DEMOTE -> {
                    if (Linux.setSchedulerOf(proxyTid, Linux.SCHED_OTHER, 0) == 0) {
                        demoted = true;
                        stats.increment(ProxyStats.BUDGET_DEMOTIONS);
                        long n = stats.get(ProxyStats.BUDGET_DEMOTIONS);
                        if (n >= loggedDemotions * 2) { // the 1st, 2nd, 4th, ...: cannot flood
                            loggedDemotions = n;
                            log.accept("xcc-rt-proxy: ran " + used / 1_000 + " us of " + intervalNanos / 1_000
                                    + " us at SCHED_FIFO: demoted to SCHED_OTHER until it sleeps again (demotion " + n + ")");
                        }
                    }
                }
                case RESTORE -> {
                    if (Linux.setSchedulerOf(proxyTid, Linux.SCHED_FIFO, fifoPriority) == 0) {
                        demoted = false;
                    }
                }
                case KEEP -> { }
            }
        }
    }
}
