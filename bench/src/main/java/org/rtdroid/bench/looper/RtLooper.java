package org.rtdroid.bench.looper;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.os.Errno;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The RT Looper of RTDroid (dissertation section 3.5.2): one message loop with a queue per priority
 * level, so a message sent by a low-priority thread never delays one sent by a higher-priority
 * thread. Within a level, messages are delivered in time order, FIFO among equal times.
 *
 * <p>Priority inheritance: the looper's thread runs at its {@link #effectivePriority()}, the highest
 * of its base priority, the message being handled and every queued message. A sender that queues a
 * message above it raises the looper thread at once (sched_setscheduler on its tid); the looper
 * lowers itself when it next dispatches a lower message (not when it parks: a parked thread competes
 * with nobody, and a looper serving one priority then makes no system call; the cost is that a
 * low-priority message can wake it at the old, higher priority for the few microseconds before it
 * lowers itself). Where SCHED_FIFO is not permitted, the effective priority is
 * still computed and still orders delivery; only the kernel priority is left unchanged (one warning).
 *
 * <p>Nothing here allocates once started: inboxes are lock-free stacks of pre-allocated messages
 * (one CAS per send), the looper drains them into per-level time-ordered lists it alone owns, and it
 * waits with {@link LockSupport#parkNanos}.
 *
 * <p>Android-style use: {@code RtLooper.prepare(name, basePriority, policy)} on a thread, create
 * handlers, then {@code RtLooper.loop()}; {@link #quit()} ends the loop. {@link RtHandlerThread}
 * does this for you.
 */
public final class RtLooper {
    /** Priority levels 0 (SCHED_OTHER senders) to 99 (highest SCHED_FIFO). */
    public static final int PRIORITY_LEVELS = 100;
    /** Inbox heads are spaced one cache line apart so senders of different levels do not share a line. */
    private static final int INBOX_PADDING_STRIDE = 16;
    private static final long NO_DEADLINE = Long.MAX_VALUE;
    private static final int OS_PRIORITY_UNKNOWN = 0;
    private static final int OS_PRIORITY_ON = 1;
    private static final int OS_PRIORITY_OFF = 2;

    private static final ThreadLocal<RtLooper> CURRENT = new ThreadLocal<>();

    private final String name;
    private final int basePriority;
    private final MessagePolicy policy;
    private final Thread thread;
    private final int tid;

    // Sender side: lock-free inboxes, one per level, and a bitmap of levels with inbox messages.
    private final AtomicReferenceArray<RtMessage> inbox =
            new AtomicReferenceArray<>(PRIORITY_LEVELS * INBOX_PADDING_STRIDE);
    private final AtomicLong pendingLow = new AtomicLong();  // levels 0..63
    private final AtomicLong pendingHigh = new AtomicLong(); // levels 64..99
    // A non-capturing lambda is a constant: accumulateAndGet with it allocates nothing.
    private static final java.util.function.LongBinaryOperator OR = (a, b) -> a | b;
    private static final java.util.function.LongBinaryOperator AND = (a, b) -> a & b;

    // Looper side (only the looper thread touches these): per-level time-ordered lists.
    private final RtMessage[] sortedHead = new RtMessage[PRIORITY_LEVELS];
    private final RtMessage[] sortedTail = new RtMessage[PRIORITY_LEVELS];
    private long sortedLow;
    private long sortedHigh;
    private volatile long sortedLowSeen;  // mirrors for effectivePriority() from other threads
    private volatile long sortedHighSeen;

    /** The priority the looper thread should run at (computed; applied to the kernel when permitted). */
    private final AtomicInteger effective;
    /** The priority last requested from the kernel for the looper thread (may lag behind when parked). */
    private final AtomicInteger kernel;
    private volatile int osPriorityState = OS_PRIORITY_UNKNOWN;
    private volatile boolean parked;
    /** A handler cancelled queued messages from another thread: the looper frees them next. */
    private volatile boolean purgeRequested;
    private volatile boolean quitting;
    private volatile long handledCount;

    private RtLooper(String name, int basePriority, MessagePolicy policy) {
        if (basePriority < 0 || basePriority >= PRIORITY_LEVELS) {
            throw new IllegalArgumentException("RT looper '" + name + "': base priority " + basePriority + " is outside 0.." + (PRIORITY_LEVELS - 1));
        }
        this.name = name;
        this.basePriority = basePriority;
        this.policy = policy == null ? MessagePolicy.INHERITANCE : policy;
        this.thread = Thread.currentThread();
        this.tid = Linux.gettid();
        this.effective = new AtomicInteger(basePriority);
        this.kernel = new AtomicInteger(basePriority);
    }

    /**
     * Makes the calling thread a looper thread. The thread's own scheduling is left as it is (apply
     * a {@code RealtimePolicy} first, as {@link RtHandlerThread} does); {@code basePriority} is the
     * priority it returns to when no message above it is queued.
     */
    public static RtLooper prepare(String name, int basePriority, MessagePolicy policy) {
        if (CURRENT.get() != null) {
            throw new IllegalStateException("Only one RT looper may be created per thread");
        }
        RtLooper l = new RtLooper(name, basePriority, policy);
        CURRENT.set(l);
        return l;
    }

    /** @return the calling thread's looper, or null */
    public static RtLooper myLooper() {
        return CURRENT.get();
    }

    /** Runs the calling thread's message loop until {@link #quit()}. */
    public static void loop() {
        RtLooper l = CURRENT.get();
        if (l == null) {
            throw new IllegalStateException("No RT looper; RtLooper.prepare() wasn't called on this thread.");
        }
        l.run();
    }

    /** Milliseconds on the time base of {@link RtHandler#sendMessageAtTime} (Android's uptimeMillis). */
    public static long uptimeMillis() {
        return System.nanoTime() / 1_000_000L;
    }

    public String getName() {
        return name;
    }

    public Thread getThread() {
        return thread;
    }

    public MessagePolicy policy() {
        return policy;
    }

    public int basePriority() {
        return basePriority;
    }

    /** Messages handled so far. */
    public long handledCount() {
        return handledCount;
    }

    /**
     * The priority the looper thread runs at under priority inheritance: the highest of its base
     * priority, the message it is handling and every queued message (due or not).
     */
    public int effectivePriority() {
        return effective.get();
    }

    /** @return true if the effective priority is applied to the kernel (SCHED_FIFO permitted) */
    public boolean osPriorityApplied() {
        return osPriorityState == OS_PRIORITY_ON;
    }

    /** Stops the loop; queued messages are not delivered (they return to their pools). */
    public void quit() {
        quitting = true;
        LockSupport.unpark(thread);
    }

    public boolean isQuitting() {
        return quitting;
    }

    // ---------------------------------------------------------------- sender side

    boolean enqueue(RtMessage m) {
        if (quitting) {
            return false;
        }
        int level = m.priority;
        int slot = level * INBOX_PADDING_STRIDE;
        RtMessage head;
        do {
            head = inbox.get(slot);
            m.next = head;
        } while (!inbox.compareAndSet(slot, head, m));
        if (level < 64) {
            pendingLow.accumulateAndGet(1L << level, OR);
        } else {
            pendingHigh.accumulateAndGet(1L << (level - 64), OR);
        }
        // Wake first, then raise: the wake-up and the priority change overlap instead of adding up
        // (the looper raises itself too when it dispatches, whichever comes first does the call).
        if (parked) {
            LockSupport.unpark(thread);
        }
        raiseTo(level);
        return true;
    }

    /** Priority inheritance, sender side: never lowers, only the looper lowers itself. */
    private void raiseTo(int p) {
        for (;;) {
            int current = effective.get();
            if (current >= p || effective.compareAndSet(current, p)) {
                break;
            }
        }
        kernelAtLeast(p);
    }

    /** Raises the kernel priority to at least {@code p} (senders, and the looper's re-check). */
    private void kernelAtLeast(int p) {
        for (;;) {
            int k = kernel.get();
            if (k >= p) {
                return;
            }
            if (kernel.compareAndSet(k, p)) {
                applyToKernel(p);
                return;
            }
        }
    }

    /** Sets the kernel priority to exactly {@code p} (the looper, before it dispatches). */
    private void kernelExactly(int p) {
        for (;;) {
            int k = kernel.get();
            if (k == p) {
                return;
            }
            if (kernel.compareAndSet(k, p)) {
                applyToKernel(p);
                return;
            }
        }
    }

    /**
     * Makes the looper thread's kernel priority follow {@link #kernel}. Two threads may change it
     * at once and their system calls may land out of order, so each re-reads the target after its
     * call and repeats until it matches (bounded: the target only moves on sends and dispatches).
     */
    private void applyToKernel(int target) {
        int state = osPriorityState;
        if (state == OS_PRIORITY_OFF) {
            return;
        }
        for (int attempt = 0; attempt < 4; attempt++) {
            int err = Linux.setSchedulerOf(tid,
                    (target > 0 ? Linux.SCHED_FIFO : Linux.SCHED_OTHER) | Linux.SCHED_RESET_ON_FORK, target);
            if (err != 0) {
                osPriorityState = OS_PRIORITY_OFF;
                RealtimeThreads.warnOnce(RealtimeThreads.SCHED_FIFO, "rtdroid: SCHED_FIFO not permitted ("
                        + Errno.name(err) + "): RT looper '" + name + "' keeps its kernel priority; messages are still"
                        + " delivered in priority order, but latency is not bounded");
                return;
            }
            if (state != OS_PRIORITY_ON) {
                osPriorityState = state = OS_PRIORITY_ON;
            }
            int now = kernel.get();
            if (now == target) {
                return;
            }
            target = now;
        }
    }

    /**
     * Returns cancelled messages to their pools: at once on the looper's own thread, otherwise
     * by the looper before its next dispatch (only the looper owns its sorted lists).
     */
    void purgeCancelled() {
        if (Thread.currentThread() == thread) {
            purgeNow();
        } else {
            purgeRequested = true;
            LockSupport.unpark(thread);
        }
    }

    /** Looper thread: sorts every inbox in, then unlinks and frees every cancelled message. */
    private void purgeNow() {
        drainInboxes();
        for (int level = 0; level < PRIORITY_LEVELS; level++) {
            RtMessage prev = null;
            RtMessage m = sortedHead[level];
            while (m != null) {
                RtMessage next = m.sortedNext;
                if (m.state() == RtMessage.CANCELLED) {
                    if (prev == null) {
                        sortedHead[level] = next;
                    } else {
                        prev.sortedNext = next;
                    }
                    if (sortedTail[level] == m) {
                        sortedTail[level] = prev;
                    }
                    m.sortedNext = null;
                    m.target.release(m);
                } else {
                    prev = m;
                }
                m = next;
            }
            if (sortedHead[level] == null) {
                markSorted(level, false);
            }
        }
        sortedLowSeen = sortedLow;
        sortedHighSeen = sortedHigh;
    }

    // ---------------------------------------------------------------- looper side

    private void run() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("RT looper '" + name + "' must loop on the thread that prepared it");
        }
        while (!quitting) {
            if (purgeRequested) {
                purgeRequested = false;
                purgeNow();
            }
            long now = System.nanoTime();
            int level = drainDownTo(highestDueLevel(now), now);
            if (level >= 0) {
                dispatch(takeHead(level));
                continue;
            }
            // Nothing due and every inbox drained: wait for a send or the earliest delayed message.
            // The computed priority drops to what is left; the kernel priority is lowered lazily, at
            // the next dispatch of a lower message: a parked thread competes with nobody, and a
            // looper that serves one priority makes no system call at all.
            settleEffective(-1);
            long wake = earliestWhen();
            parked = true;
            if ((pendingLow.get() | pendingHigh.get()) == 0 && !quitting && !purgeRequested) {
                if (wake == NO_DEADLINE) {
                    LockSupport.park(this);
                } else {
                    long wait = wake - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(this, wait);
                    }
                }
            }
            parked = false;
        }
        discardAll();
    }

    private void dispatch(RtMessage m) {
        if (!m.beginHandling()) { // cancelled by removeMessages: free it, do not deliver
            m.target.release(m);
            return;
        }
        int p = settleEffective(m.priority);
        kernelExactly(p);
        int raised = effective.get(); // a sender that raised it meanwhile may have seen the old kernel value
        if (raised > p) {
            kernelAtLeast(raised);
        }
        try {
            m.target.handleMessage(m);
        } finally {
            handledCount++;
            m.target.release(m);
        }
    }

    /**
     * Priority inheritance, looper side: sets the computed effective priority to what the backlog
     * requires (down or up) and returns it. Reads the backlog after reading the current value, so a
     * send that raised it in between is seen (or the CAS fails and it is read again).
     */
    private int settleEffective(int required) {
        for (;;) {
            int current = effective.get();
            int target = Math.max(Math.max(required, pendingMax(-1)), basePriority);
            if (current == target || effective.compareAndSet(current, target)) {
                return target;
            }
        }
    }

    /** Highest level with an inbox or sorted message, or {@code floor}, or the base priority. */
    private int pendingMax(int floor) {
        int p = Math.max(floor, basePriority);
        long hi = pendingHigh.get() | sortedHighSeen;
        if (hi != 0) {
            return Math.max(p, 64 + 63 - Long.numberOfLeadingZeros(hi));
        }
        long lo = pendingLow.get() | sortedLowSeen;
        if (lo != 0) {
            return Math.max(p, 63 - Long.numberOfLeadingZeros(lo));
        }
        return p;
    }

    /**
     * Drains inboxes from the highest pending level down, but only levels at or above {@code best}
     * (the highest level that already has a due message), and stops at the first level that yields
     * a due message: a burst of low-priority sends is never sorted before a high-priority message is
     * dispatched. Lower inboxes stay pending until nothing above them is due.
     *
     * <p>The inbox of {@code best} itself is drained too, before each of its dispatches: so it only
     * ever holds what was sent during one handler. Left until the sorted backlog ran out, a saturated
     * level's inbox grew to thousands of messages, and sorting them in (a walk over as many cold
     * objects) delayed a high-priority message that arrived meanwhile by hundreds of µs.
     *
     * @return the highest level with a due message, or -1 (then every inbox was drained)
     */
    private int drainDownTo(int best, long now) {
        for (;;) {
            int level = highestPendingInbox();
            if (level < best || level < 0) {
                return best;
            }
            clearPending(level);
            drainLevel(level); // after clearing the bit: a later send sets it again
            sortedLowSeen = sortedLow;
            sortedHighSeen = sortedHigh;
            RtMessage head = sortedHead[level];
            if (head != null && head.whenNanos - now <= 0) {
                return level;
            }
        }
    }

    private int highestPendingInbox() {
        long hi = pendingHigh.get();
        if (hi != 0) {
            return 64 + 63 - Long.numberOfLeadingZeros(hi);
        }
        long lo = pendingLow.get();
        return lo == 0 ? -1 : 63 - Long.numberOfLeadingZeros(lo);
    }

    private void clearPending(int level) {
        long bit = 1L << (level & 63);
        if (level < 64) {
            pendingLow.accumulateAndGet(~bit, AND);
        } else {
            pendingHigh.accumulateAndGet(~bit, AND);
        }
    }

    /** Drains every inbox (shutdown). */
    private void drainInboxes() {
        for (int level = highestPendingInbox(); level >= 0; level = highestPendingInbox()) {
            clearPending(level);
            drainLevel(level);
        }
    }

    private void drainLevel(int level) {
        RtMessage stack = inbox.getAndSet(level * INBOX_PADDING_STRIDE, null);
        // The inbox is LIFO; reverse it to send order before inserting.
        RtMessage ordered = null;
        while (stack != null) {
            RtMessage next = stack.next;
            stack.next = ordered;
            ordered = stack;
            stack = next;
        }
        while (ordered != null) {
            RtMessage next = ordered.next;
            ordered.next = null;
            insertSorted(level, ordered);
            ordered = next;
        }
    }

    /** Time order, FIFO among equal times; appending at the tail is the common O(1) case. */
    private void insertSorted(int level, RtMessage m) {
        m.sortedNext = null;
        RtMessage tail = sortedTail[level];
        if (tail == null) {
            sortedHead[level] = sortedTail[level] = m;
            markSorted(level, true);
            return;
        }
        if (m.whenNanos - tail.whenNanos >= 0) {
            tail.sortedNext = m;
            sortedTail[level] = m;
            return;
        }
        RtMessage prev = null;
        RtMessage cur = sortedHead[level];
        while (cur != null && m.whenNanos - cur.whenNanos >= 0) {
            prev = cur;
            cur = cur.sortedNext;
        }
        m.sortedNext = cur;
        if (prev == null) {
            sortedHead[level] = m;
        } else {
            prev.sortedNext = m;
        }
    }

    private void markSorted(int level, boolean nonEmpty) {
        if (level < 64) {
            sortedLow = nonEmpty ? sortedLow | (1L << level) : sortedLow & ~(1L << level);
        } else {
            sortedHigh = nonEmpty ? sortedHigh | (1L << (level - 64)) : sortedHigh & ~(1L << (level - 64));
        }
    }

    /** The highest level whose head message is due, or -1. */
    private int highestDueLevel(long now) {
        long hi = sortedHigh;
        while (hi != 0) {
            int bit = 63 - Long.numberOfLeadingZeros(hi);
            hi &= ~(1L << bit);
            if (sortedHead[64 + bit].whenNanos - now <= 0) {
                return 64 + bit;
            }
        }
        long lo = sortedLow;
        while (lo != 0) {
            int bit = 63 - Long.numberOfLeadingZeros(lo);
            lo &= ~(1L << bit);
            if (sortedHead[bit].whenNanos - now <= 0) {
                return bit;
            }
        }
        return -1;
    }

    private RtMessage takeHead(int level) {
        RtMessage head = sortedHead[level];
        sortedHead[level] = head.sortedNext;
        head.sortedNext = null;
        if (sortedHead[level] == null) {
            sortedTail[level] = null;
            markSorted(level, false);
            sortedLowSeen = sortedLow;
            sortedHighSeen = sortedHigh;
        }
        return head;
    }

    private long earliestWhen() {
        long earliest = NO_DEADLINE;
        for (int level = 0; level < PRIORITY_LEVELS; level++) {
            RtMessage head = sortedHead[level];
            if (head != null && (earliest == NO_DEADLINE || head.whenNanos - earliest < 0)) {
                earliest = head.whenNanos;
            }
        }
        return earliest;
    }

    private void discardAll() {
        drainInboxes();
        for (int level = 0; level < PRIORITY_LEVELS; level++) {
            RtMessage m = sortedHead[level];
            while (m != null) {
                RtMessage next = m.sortedNext;
                m.target.release(m);
                m = next;
            }
            sortedHead[level] = sortedTail[level] = null;
        }
        sortedLow = sortedHigh = 0;
        sortedLowSeen = sortedHighSeen = 0;
        CURRENT.remove();
    }

    @Override
    public String toString() {
        return "RtLooper{" + name + ", base " + basePriority + ", effective " + effective.get() + ", " + policy + "}";
    }
}
