package org.rtdroid.runtime.event;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PiMutex;
import org.rtdroid.runtime.os.RealtimePolicy;

/**
 * A fixed pool of threads for many handlers (the dissertation's thread-pool AEH after Kim et al.):
 * released handlers wait in one queue ordered by handler priority (oldest release first among
 * equals, never plain FIFO); an idle pool thread takes the highest, switches itself to that
 * handler's priority ({@code sched_setscheduler}) and, for a handler pinned to a CPU
 * ({@link AsyncEventHandler#pinTo}), to that CPU ({@code sched_setaffinity}, only when it changes),
 * runs one release and comes back for the next.
 * Idle pool threads wait at the highest priority of the attached handlers so that a release is
 * picked up at once.
 *
 * <p>Saturation policy {@value #SATURATION_POLICY}: a release that finds every pool thread busy
 * waits in the queue, by priority, until a pool thread is free; nothing is dropped (a handler is
 * queued at most once, its fire count says how many runs it is owed, so the queue is bounded by
 * the attached handlers). Such releases are counted ({@link #saturatedReleases}); the wait they
 * suffer is bounded by the longest release of a running handler, which is why the pool size is
 * chosen statically.
 *
 * <p>The queue is guarded by a {@link PiMutex}: a high-priority firer blocked on it boosts the
 * holder. Nothing here allocates after {@link #attach}.
 */
public final class PooledDispatcher extends HandlerDispatcher {
    public static final String SATURATION_POLICY = "queue-by-priority";

    private final PiMutex lock;
    private final AsyncEventHandler[] queue;   // binary heap: priority desc, queueSeq asc
    private int queueSize;
    private long nextSeq;
    private final Thread[] workers;
    private final int[] workerTids;
    private final Thread[] idle;               // stack of parked workers
    private final boolean[] isIdle;
    private int idleCount;
    private int attached;
    private volatile int topPriority = 1;
    private volatile long saturated;
    private volatile boolean started;

    PooledDispatcher(String name, int poolSize, int maxHandlers, IntFunction<RealtimePolicy> policyFor) {
        super(name, policyFor);
        if (poolSize < 1) {
            throw new IllegalArgumentException("dispatcher '" + name + "': pool size must be at least 1, was " + poolSize);
        }
        if (maxHandlers < 1) {
            throw new IllegalArgumentException("dispatcher '" + name + "': maxHandlers must be at least 1");
        }
        this.lock = new PiMutex(name + ".queue");
        this.queue = new AsyncEventHandler[maxHandlers];
        this.workers = new Thread[poolSize];
        this.workerTids = new int[poolSize];
        this.idle = new Thread[poolSize];
        this.isIdle = new boolean[poolSize];
    }

    @Override
    void onAttach(AsyncEventHandler h) {
        if (attached == queue.length) {
            throw new IllegalStateException("dispatcher '" + name + "' already has its " + queue.length + " handlers");
        }
        attached++;
        if (h.priority() > topPriority) {
            topPriority = h.priority();
        }
        if (!started) {
            started = true;
            for (int i = 0; i < workers.length; i++) {
                int me = i;
                workers[i] = Thread.ofPlatform().name(name + "/pool-" + i).daemon(true).unstarted(() -> workerLoop(me));
                workers[i].start();
            }
        }
    }

    @Override
    void release(AsyncEventHandler h) {
        Thread wake = null;
        lock.lock();
        try {
            // Counted under the lock, as the worker's dequeue and re-queue read it: counted before,
            // a worker finishing h could take this firing's run and this release then queue h
            // again with nothing owed (an empty run, and a later firing's run lost to it).
            h.fireCount.incrementAndGet();
            if (!h.queued && !h.running) {
                enqueue(h);
            }
            if (idleCount > 0) {
                wake = idle[--idleCount];
                isIdle[indexOf(wake)] = false;
            } else {
                saturated++;
            }
        } finally {
            lock.unlock();
        }
        // Woken after the unlock: the idle thread waits above the firer, so woken inside the
        // section it would preempt the firer at once only to block on the queue lock, boost the
        // firer through it and be handed the lock back (three context switches where one will do,
        // measured on the host board: a pooled dispatch of ~9 us against a bound one's ~3 us).
        // Nothing is lost: it left the idle stack under the lock, and an unpark before its park
        // is kept as the thread's permit.
        if (wake != null) {
            LockSupport.unpark(wake);
        }
    }

    private int indexOf(Thread w) {
        for (int i = 0; i < workers.length; i++) {
            if (workers[i] == w) {
                return i;
            }
        }
        throw new IllegalStateException("not a pool thread");
    }

    private void workerLoop(int me) {
        synchronized (workerTids) {
            workerTids[me] = Linux.gettid();
        }
        int top = topPriority;  // once: a handler attached in between would leave current above the kernel's
        boolean fifo = applyPolicy(top);
        int current = fifo ? top : 0;
        org.rtdroid.runtime.os.CpuSet pinned = null;
        Thread self = Thread.currentThread();
        while (running) {
            AsyncEventHandler h;
            lock.lock();
            try {
                h = dequeue();
                if (h != null) {
                    h.running = true;
                    h.fireCount.decrementAndGet();
                } else if (!isIdle[me]) {
                    isIdle[me] = true;
                    idle[idleCount++] = self;
                }
            } finally {
                lock.unlock();
            }
            if (h == null) {
                // Wait where a release finds this thread at once: the top priority of the pool.
                current = switchTo(fifo, current, topPriority);
                LockSupport.park(this);
                continue;
            }
            current = switchTo(fifo, current, h.priority());
            if (h.cpu() != null && h.cpu() != pinned) {  // to the handler's CPU, as it switches priority
                pinTo(h);
                pinned = h.cpu();
            }
            runOne(h);
            lock.lock();
            try {
                h.running = false;
                if (h.fireCount.get() > 0) {
                    enqueue(h); // its next run competes by priority with what was released meanwhile
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private static int switchTo(boolean fifo, int current, int priority) {
        if (!fifo || current == priority) {
            return current;
        }
        return Linux.setScheduler(Linux.SCHED_FIFO | Linux.SCHED_RESET_ON_FORK, priority) == 0 ? priority : current;
    }

    // ---- the queue: a binary heap, highest priority then oldest release at the root ----------

    private static boolean before(AsyncEventHandler a, AsyncEventHandler b) {
        return a.priority() > b.priority() || (a.priority() == b.priority() && a.queueSeq < b.queueSeq);
    }

    private void enqueue(AsyncEventHandler h) {
        h.queued = true;
        h.queueSeq = nextSeq++;
        int i = queueSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(h, queue[parent])) {
                break;
            }
            queue[i] = queue[parent];
            i = parent;
        }
        queue[i] = h;
    }

    private AsyncEventHandler dequeue() {
        if (queueSize == 0) {
            return null;
        }
        AsyncEventHandler top = queue[0];
        AsyncEventHandler last = queue[--queueSize];
        queue[queueSize] = null;
        if (queueSize > 0) {
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= queueSize) {
                    break;
                }
                if (child + 1 < queueSize && before(queue[child + 1], queue[child])) {
                    child++;
                }
                if (!before(queue[child], last)) {
                    break;
                }
                queue[i] = queue[child];
                i = child;
            }
            queue[i] = last;
        }
        top.queued = false;
        return top;
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        for (Thread w : workers) {
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
        for (Thread w : workers) {
            if (w != null) {
                w.join(STOP_JOIN_MILLIS);
            }
        }
    }

    @Override
    public HandlerStrategy strategy() { return HandlerStrategy.POOLED; }

    @Override
    public int threadCount() { return started ? workers.length : 0; }

    public int poolSize() { return workers.length; }

    @Override
    public long saturatedReleases() { return saturated; }

    @Override
    public Thread[] threads() { return started ? workers.clone() : new Thread[0]; }

    @Override
    public int[] tids() {
        synchronized (workerTids) {
            return started ? workerTids.clone() : new int[0];
        }
    }
}
