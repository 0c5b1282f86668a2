package org.rtdroid.runtime.event;

import java.util.function.IntFunction;
import org.rtdroid.runtime.os.RealtimePolicy;

/**
 * Gives released handlers a thread at their priority: {@link BoundDispatcher} (a thread per
 * handler) or {@link PooledDispatcher} (a fixed pool). Handlers are attached at set-up;
 * {@link #release} is the allocation-free real-time path {@link AsyncEvent#fire} takes.
 */
public abstract class HandlerDispatcher {
    /** Wait for a dispatcher's threads to end on {@link #stop}. */
    static final long STOP_JOIN_MILLIS = 2_000;

    final String name;
    final IntFunction<RealtimePolicy> policyFor;
    volatile boolean running = true;
    private volatile long failures;
    private volatile Throwable lastFailure;

    HandlerDispatcher(String name, IntFunction<RealtimePolicy> policyFor) {
        this.name = name;
        this.policyFor = policyFor;
    }

    /**
     * @param strategy bound or pooled
     * @param poolSize threads of a pooled dispatcher (ignored for bound)
     * @param maxHandlers handlers that may be attached (bounds the pool's queue)
     * @param policyFor the scheduling policy of a thread at a priority, or null for SCHED_OTHER
     *     (a cell that is not real-time)
     */
    public static HandlerDispatcher create(String name, HandlerStrategy strategy, int poolSize, int maxHandlers,
                                           IntFunction<RealtimePolicy> policyFor) {
        return switch (strategy) {
            case BOUND -> new BoundDispatcher(name, maxHandlers, policyFor);
            case POOLED -> new PooledDispatcher(name, poolSize, maxHandlers, policyFor);
        };
    }

    /** Set-up: binds {@code h} to this dispatcher (a handler belongs to one dispatcher). */
    public final synchronized void attach(AsyncEventHandler h) {
        if (h.dispatcher != null) {
            throw new IllegalStateException("handler '" + h.name() + "' is already attached");
        }
        if (!running) {
            throw new IllegalStateException("dispatcher '" + name + "' is stopped");
        }
        onAttach(h);
        h.dispatcher = this;
    }

    abstract void onAttach(AsyncEventHandler h);

    /** Adds one to the handler's fire count and sees that a thread at its priority runs it. */
    abstract void release(AsyncEventHandler h);

    /** Stops every thread of this dispatcher (pending firings are dropped); waits for them briefly. */
    public abstract void stop() throws InterruptedException;

    public abstract HandlerStrategy strategy();

    /** Threads this dispatcher runs now. */
    public abstract int threadCount();

    /** The threads handlers run on (reports and tests). */
    public abstract Thread[] threads();

    /** Kernel thread ids of {@link #threads()}, in the same order (0: not running yet). */
    public abstract int[] tids();

    /** Releases that found every pool thread busy (always 0 for bound dispatch). */
    public long saturatedReleases() { return 0; }

    /** Handler runs that threw (the handler stays attached). */
    public final long failures() { return failures; }

    public final Throwable lastFailure() { return lastFailure; }

    public final String name() { return name; }

    /** Runs one release of {@code h} on the calling thread, counting a failure rather than dying. */
    final void runOne(AsyncEventHandler h) {
        try {
            h.runOnce();
        } catch (Throwable t) {
            failures++;
            lastFailure = t;
        }
    }

    /**
     * Pins the calling thread to {@code h}'s CPU ({@link AsyncEventHandler#pinTo}), if it has one; a
     * refusal is counted as a failure of the handler (its releases then run where the thread is).
     */
    final void pinTo(AsyncEventHandler h) {
        org.rtdroid.runtime.os.CpuSet cpu = h.cpu();
        if (cpu != null) {
            int err = org.rtdroid.runtime.os.Linux.setAffinity(cpu);
            if (err != 0) {
                failures++;
                lastFailure = new IllegalStateException("handler '" + h.name() + "' cannot be pinned to CPU " + cpu
                        + ": sched_setaffinity: " + org.rtdroid.runtime.os.Errno.describe(err));
            }
        }
    }

    /** The policy of a thread at {@code priority}, applied to the calling thread; @return whether it runs SCHED_FIFO */
    final boolean applyPolicy(int priority) {
        RealtimePolicy p = policyFor == null ? null : policyFor.apply(priority);
        return p != null && org.rtdroid.runtime.os.RealtimeThreads.applyToCurrentThread(p).isFifo();
    }
}
