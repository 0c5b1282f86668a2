package org.rtdroid.bench.looper;

import java.util.concurrent.CountDownLatch;
import org.rtdroid.runtime.os.AppliedPolicy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * A thread with an RT looper, like Android's {@code HandlerThread}: it applies its real-time policy
 * (SCHED_FIFO at the base priority, CPUs, 1 ns timer slack; degraded with a warning where not
 * permitted), prepares the looper and loops until {@link #quit()}.
 */
public final class RtHandlerThread extends Thread {
    private final int basePriority;
    private final MessagePolicy policy;
    private final CpuSet cpus;
    private final CountDownLatch prepared = new CountDownLatch(1);
    private volatile RtLooper looper;
    private volatile AppliedPolicy applied;

    public RtHandlerThread(String name, int basePriority, MessagePolicy policy) {
        this(name, basePriority, policy, null);
    }

    /** @param cpus CPUs to pin the looper thread to, or null to keep the inherited affinity */
    public RtHandlerThread(String name, int basePriority, MessagePolicy policy, CpuSet cpus) {
        super(name);
        if (basePriority < 0 || basePriority >= RtLooper.PRIORITY_LEVELS) {
            throw new IllegalArgumentException("RT handler thread '" + name + "': base priority " + basePriority + " is outside 0..99");
        }
        this.basePriority = basePriority;
        this.policy = policy;
        this.cpus = cpus;
        setDaemon(true);
    }

    @Override
    public void run() {
        applied = RealtimeThreads.applyToCurrentThread(new RealtimePolicy(basePriority, cpus, 1));
        looper = RtLooper.prepare(getName(), basePriority, policy);
        prepared.countDown();
        RtLooper.loop();
    }

    /** Waits until the thread has prepared its looper. */
    public RtLooper getLooper() {
        if (!isAlive() && looper == null) {
            throw new IllegalStateException("RT handler thread '" + getName() + "' is not started");
        }
        try {
            prepared.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for RT looper '" + getName() + "'", e);
        }
        return looper;
    }

    /** What the kernel granted this thread at start (null before it ran). */
    public AppliedPolicy appliedPolicy() {
        return applied;
    }

    public boolean quit() {
        RtLooper l = looper;
        if (l == null) {
            return false;
        }
        l.quit();
        return true;
    }
}
