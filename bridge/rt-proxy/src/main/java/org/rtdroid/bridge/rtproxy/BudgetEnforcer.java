package org.rtdroid.bridge.rtproxy;

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
 * {@code intervalNanos}. If the proxy ran at least {@code demoteNanos} of an interval (that
 * share of a longer one) at SCHED_FIFO, it is demoted to SCHED_OTHER, where it shares the CPU with the JVM's threads and
 * whatever it waits for can happen. Once it ran at most {@code restoreNanos} of an interval (it
 * sleeps again), it gets its SCHED_FIFO priority back. A proxy within its 20% budget is never
 * demoted; a cold pass of a few ms may be, which only makes that pass fair to the JVM's threads.
 *
 * <p>The enforcer's own cost: one wake-up per interval (two clock reads; no allocation, no lock,
 * no logging: the proxy logs the demotions it finds counted). It cannot catch a spin shorter than
 * an interval, and it does not watch the real-time components: their work per release is bounded
 * by the manifest, and overruns are skipped and counted.
 *
 * <p>It starts SCHED_OTHER and rises to its SCHED_FIFO priority only after {@link #WARM_LOOKS}
 * looks at its own clock. A new thread's first calls (class loading, its per-thread native
 * buffers, the first clock reads) are where the host board saw new SCHED_FIFO threads spin for
 * ~1 s: the proxy once, and this enforcer once while it started at SCHED_FIFO; nothing watches
 * the enforcer.
 */
public final class BudgetEnforcer implements Runnable {
    /** How often the enforcer looks at the proxy. */
    public static final long DEFAULT_INTERVAL_NANOS = 5_000_000L;
    /** Demote after 90% of an interval at SCHED_FIFO. */
    public static final long DEFAULT_DEMOTE_NANOS = 4_500_000L;
    /** Restore once the proxy used at most half an interval. */
    public static final long DEFAULT_RESTORE_NANOS = 2_500_000L;
    /** Looks at its own clock, 1 ms apart, under SCHED_OTHER before it rises. */
    public static final int WARM_LOOKS = 50;

    /** What one look at the proxy decided. */
    public enum Action { KEEP, DEMOTE, RESTORE }

    private final int proxyPriority;
    private final int ownPriority;
    private final long intervalNanos;
    private final long demoteNanos;
    private final long restoreNanos;
    private final ProxyStats stats;
    private volatile boolean running = true;
    private volatile int proxyTid;
    private volatile boolean ready;
    private volatile boolean settled;
    private volatile long lastDemotionUsedNanos;
    private volatile long lastDemotionElapsedNanos;
    private boolean demoted;

    /**
     * @param proxyPriority the proxy's SCHED_FIFO priority, given back on restore
     * @param ownPriority the enforcer's SCHED_FIFO priority once warm (above the proxy's)
     * @param stats where demotions are counted (budget_demotions)
     */
    public BudgetEnforcer(int proxyPriority, int ownPriority, long intervalNanos, long demoteNanos, long restoreNanos,
                          ProxyStats stats) {
        if (intervalNanos <= 0 || demoteNanos <= 0 || demoteNanos > intervalNanos || restoreNanos < 0
                || restoreNanos >= demoteNanos) {
            throw new IllegalArgumentException("budget enforcer: need 0 <= restore (" + restoreNanos + " ns) < demote ("
                    + demoteNanos + " ns) <= interval (" + intervalNanos + " ns)");
        }
        if (ownPriority <= proxyPriority) {
            throw new IllegalArgumentException("budget enforcer: its priority " + ownPriority
                    + " must be above the proxy's " + proxyPriority);
        }
        this.proxyPriority = proxyPriority;
        this.ownPriority = ownPriority;
        this.intervalNanos = intervalNanos;
        this.demoteNanos = demoteNanos;
        this.restoreNanos = restoreNanos;
        this.stats = stats;
    }

    /** The enforcer with the default interval and thresholds, one priority above the proxy. */
    public static BudgetEnforcer forProxy(int proxyPriority, ProxyStats stats) {
        return new BudgetEnforcer(proxyPriority, proxyPriority + 1, DEFAULT_INTERVAL_NANOS, DEFAULT_DEMOTE_NANOS,
                DEFAULT_RESTORE_NANOS, stats);
    }

    /** Starts watching thread {@code tid} (the proxy, running SCHED_FIFO at the proxy's priority). */
    public void watch(int tid) {
        proxyTid = tid;
    }

    /**
     * The decision for one look: the proxy used {@code usedNanos} of CPU in the {@code elapsedNanos}
     * since the last one (an interval, or more when the enforcer itself woke late: the thresholds
     * are shares of the interval). Pure, so it is tested without threads.
     */
    public Action decide(boolean isDemoted, long usedNanos, long elapsedNanos) {
        long elapsed = Math.max(elapsedNanos, 1);
        if (!isDemoted && usedNanos * intervalNanos >= demoteNanos * elapsed) {
            return Action.DEMOTE;
        }
        if (isDemoted && usedNanos * intervalNanos <= restoreNanos * elapsed) {
            return Action.RESTORE;
        }
        return Action.KEEP;
    }

    /** True once the enforcer is warm and runs at its SCHED_FIFO priority. */
    public boolean isReady() {
        return ready;
    }

    /**
     * True once the enforcer is warm and either runs at its SCHED_FIFO priority or found it is not
     * permitted to (then it has ended). The proxy rises to SCHED_FIFO only after this.
     */
    public boolean isSettled() {
        return settled;
    }

    /** CPU time the proxy used in the look that last demoted it (0: none yet). */
    public long lastDemotionUsedNanos() {
        return lastDemotionUsedNanos;
    }

    /** The time that look covered. */
    public long lastDemotionElapsedNanos() {
        return lastDemotionElapsedNanos;
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        int self = Linux.gettid();
        for (int i = 0; i < WARM_LOOKS && running; i++) {
            Linux.threadCpuNanosOf(self);
            decide(false, 0, intervalNanos);
            Linux.sleepUntilNanos(Linux.monotonicNanos() + 1_000_000L);
        }
        if (Linux.setScheduler(Linux.SCHED_FIFO, ownPriority) != 0) {
            settled = true;
            return; // not permitted: then the proxy is not SCHED_FIFO either
        }
        ready = true;
        settled = true;
        while (running && proxyTid == 0) {
            Linux.sleepUntilNanos(Linux.monotonicNanos() + intervalNanos);
        }
        int tid = proxyTid;
        long last = Linux.threadCpuNanosOf(tid);
        long lastLook = Linux.monotonicNanos();
        long next = lastLook + intervalNanos;
        while (running) {
            Linux.sleepUntilNanos(next);
            next += intervalNanos;
            long cpu = Linux.threadCpuNanosOf(tid);
            long now = Linux.monotonicNanos();
            if (cpu < 0) {
                return; // the proxy thread has ended
            }
            if (next < now) {
                next = now + intervalNanos; // the enforcer itself was held up: no catch-up
            }
            long used = cpu - last;
            long elapsed = now - lastLook;
            last = cpu;
            lastLook = now;
            switch (decide(demoted, used, elapsed)) {
                case DEMOTE -> {
                    if (Linux.setSchedulerOf(tid, Linux.SCHED_OTHER, 0) == 0) {
                        demoted = true;
                        lastDemotionUsedNanos = used;
                        lastDemotionElapsedNanos = elapsed;
                        stats.increment(ProxyStats.BUDGET_DEMOTIONS);
                    }
                }
                case RESTORE -> {
                    if (Linux.setSchedulerOf(tid, Linux.SCHED_FIFO, proxyPriority) == 0) {
                        demoted = false;
                    }
                }
                case KEEP -> { }
            }
        }
    }
}
