package org.rtdroid.runtime.event;

import java.util.concurrent.atomic.AtomicInteger;
import org.rtdroid.runtime.os.CpuSet;

/**
 * The code an {@link AsyncEvent} releases (RTSJ's AsyncEventHandler, seed 003; dissertation
 * 3.6.2), at this handler's own priority. Each firing of an event the handler is attached to adds
 * one to its fire count; the dispatcher runs {@link #handleAsyncEvent} once per count, one run at
 * a time (never two threads in the same handler), so a handler needs no lock of its own.
 */
public abstract class AsyncEventHandler {
    private final String name;
    private final int priority;
    final AtomicInteger fireCount = new AtomicInteger();
    HandlerDispatcher dispatcher;
    Thread boundThread;
    // Pooled dispatch bookkeeping, guarded by the pool's lock.
    boolean queued;
    boolean running;
    long queueSeq;
    private volatile long runs;
    private volatile CpuSet cpu;

    /** @param priority the SCHED_FIFO priority {@link #handleAsyncEvent} runs at (1..99) */
    protected AsyncEventHandler(String name, int priority) {
        if (priority < 1 || priority > 99) {
            throw new IllegalArgumentException("handler '" + name + "': priority " + priority + " outside 1..99");
        }
        this.name = name;
        this.priority = priority;
    }

    /** One release of this handler. Runs at {@link #priority()}; must not allocate after warm-up. */
    public abstract void handleAsyncEvent();

    public final String name() { return name; }

    public final int priority() { return priority; }

    /**
     * Set-up, before the handler is attached: the CPU its releases run on (a partitioned cell pins
     * a receiver's handler to the receiver's CPU); null (the default) keeps the dispatcher's.
     */
    public final void pinTo(CpuSet cpus) { this.cpu = cpus; }

    /** The CPU {@link #pinTo} gave, or null. */
    public final CpuSet cpu() { return cpu; }

    /** Firings not yet handled. */
    public final int pendingFireCount() { return fireCount.get(); }

    /** Completed runs of {@link #handleAsyncEvent}. */
    public final long runs() { return runs; }

    /** Called by the dispatcher's thread: one release, counted; a throwing handler is counted by the dispatcher. */
    final void runOnce() {
        try {
            handleAsyncEvent();
        } finally {
            runs++;
        }
    }
}
