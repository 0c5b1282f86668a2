package org.rtdroid.runtime.event;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.rtdroid.runtime.os.RealtimePolicy;

/**
 * One thread per handler, started when the handler is attached and parked at the handler's
 * priority until a firing unparks it. The kernel orders the handlers: a release costs an atomic
 * increment and an unpark. Thread count grows with the handlers (the dissertation's per-thread AEH).
 */
public final class BoundDispatcher extends HandlerDispatcher {
    private final int maxHandlers;
    private final List<Thread> threads = new ArrayList<>();
    private final int[] tids;

    BoundDispatcher(String name, int maxHandlers, IntFunction<RealtimePolicy> policyFor) {
        super(name, policyFor);
        this.maxHandlers = maxHandlers;
        this.tids = new int[maxHandlers];
    }

    @Override
    void onAttach(AsyncEventHandler h) {
        if (threads.size() == maxHandlers) {
            throw new IllegalStateException("dispatcher '" + name + "' already has its " + maxHandlers + " handlers");
        }
        int index = threads.size();
        Thread t = Thread.ofPlatform().name(name + "/" + h.name()).daemon(true).unstarted(() -> handlerLoop(h, index));
        h.boundThread = t;
        threads.add(t);
        t.start();
    }

    private void handlerLoop(AsyncEventHandler h, int index) {
        applyPolicy(h.priority());
        pinTo(h);
        synchronized (this) {
            tids[index] = org.rtdroid.runtime.os.Linux.gettid();
        }
        while (running) {
            int n = h.fireCount.get();
            if (n == 0) {
                LockSupport.park(this);
                continue;
            }
            h.fireCount.decrementAndGet();
            runOne(h);
        }
    }

    @Override
    void release(AsyncEventHandler h) {
        h.fireCount.incrementAndGet();
        LockSupport.unpark(h.boundThread);
    }

    @Override
    public synchronized void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        for (Thread t : threads) {
            t.join(STOP_JOIN_MILLIS);
        }
    }

    @Override
    public HandlerStrategy strategy() { return HandlerStrategy.BOUND; }

    @Override
    public synchronized int threadCount() { return threads.size(); }

    @Override
    public synchronized Thread[] threads() { return threads.toArray(new Thread[0]); }

    @Override
    public synchronized int[] tids() { return java.util.Arrays.copyOf(tids, threads.size()); }
}
