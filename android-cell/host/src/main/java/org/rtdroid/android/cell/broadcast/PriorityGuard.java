package org.rtdroid.android.cell.broadcast;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The guarded critical section of Kalkov et al. (seed 001): a lock whose waiters queue by
 * priority. A thread that finds the guard taken enqueues its priority and parks; release hands
 * the guard directly to the most urgent waiter (first come among equals), so a high-priority
 * sender or delivery thread never waits behind low-priority threads that asked earlier, only for
 * the one holder (critical sections here are queue bookkeeping: a few hundred nanoseconds).
 * Not reentrant. Waiters live in a fixed array sized at construction, and the guard's own
 * bookkeeping (tens of nanoseconds) is held with a spin lock, not a {@code ReentrantLock}, whose
 * contended acquisition allocates a queue node: acquiring and releasing allocate nothing, also
 * under contention. More simultaneous waiters than the table holds is a programming error.
 */
public final class PriorityGuard {
    /** Held for the bookkeeping only (never while a thread parks). */
    private final AtomicBoolean meta = new AtomicBoolean();
    private final Thread[] waiters;
    private final int[] priorities;
    private final long[] tickets;
    private int count;
    private long nextTicket;
    private volatile Thread holder;

    PriorityGuard(int maxWaiters) {
        waiters = new Thread[maxWaiters];
        priorities = new int[maxWaiters];
        tickets = new long[maxWaiters];
    }

    public void acquire(int priority) {
        Thread me = Thread.currentThread();
        lockMeta();
        try {
            if (holder == null) {
                holder = me;
                return;
            }
            if (count == waiters.length) {
                throw new IllegalStateException("more than " + waiters.length + " threads waiting for the guard");
            }
            waiters[count] = me;
            priorities[count] = priority;
            tickets[count] = nextTicket++;
            count++;
        } finally {
            meta.set(false);
        }
        while (holder != me) { // spurious wake-ups park again
            LockSupport.park(this);
        }
    }

    public void release() {
        Thread next;
        lockMeta();
        try {
            if (holder != Thread.currentThread()) {
                throw new IllegalMonitorStateException("the guard is not held by " + Thread.currentThread().getName());
            }
            int best = -1;
            for (int i = 0; i < count; i++) {
                if (best < 0 || priorities[i] > priorities[best]
                        || (priorities[i] == priorities[best] && tickets[i] < tickets[best])) {
                    best = i;
                }
            }
            if (best < 0) {
                holder = null;
                return;
            }
            next = waiters[best];
            count--;
            waiters[best] = waiters[count];
            priorities[best] = priorities[count];
            tickets[best] = tickets[count];
            waiters[count] = null;
            holder = next;
        } finally {
            meta.set(false);
        }
        LockSupport.unpark(next);
    }

    private void lockMeta() {
        for (int spins = 0; !meta.compareAndSet(false, true); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 110) {
                Thread.yield(); // the holder was preempted inside its few instructions: let it finish
            } else {
                // A SCHED_FIFO thread's yield does not give its CPU to a SCHED_OTHER holder
                // preempted there (the real-time broadcast path runs at SCHED_FIFO): sleeping does.
                LockSupport.parkNanos(1_000);
            }
        }
    }

    /** Threads parked waiting for the guard (for tests that line waiters up). */
    public int waiting() {
        lockMeta();
        try {
            return count;
        } finally {
            meta.set(false);
        }
    }
}
