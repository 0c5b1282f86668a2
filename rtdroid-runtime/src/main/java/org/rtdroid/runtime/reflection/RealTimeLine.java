package org.rtdroid.runtime.reflection;

import org.rtdroid.runtime.os.PiCondition;
import org.rtdroid.runtime.os.PiMutex;

/**
 * Real time as the application sees and plans it (seed 004, section 2.3): {@link #now()}, a
 * future timeline of planned actions in planned-begin order, which the strategist plans on and
 * may change until an action starts, and a {@link PastTimeline} of what ran. One
 * {@link ExecutionEngine} runs the future timeline's actions.
 *
 * <p>Bounded and preallocated: the future holds at most {@code futureCapacity} actions
 * ({@link OverflowPolicy#REJECT_NEWEST}: {@link #plan} returns false and {@link #rejected()} counts
 * it), the past {@code pastCapacity} entries. Planning, replacing and cancelling allocate nothing.
 * The future is guarded by a priority-inheritance mutex (a planner of lower priority than the
 * engine holding it is boosted), whose CLOCK_MONOTONIC condition is also what the engine sleeps
 * on, with an absolute deadline: a new head wakes it at once.
 */
public final class RealTimeLine {
    private final String name;
    private final Action[] future;
    private int size;
    private final PastTimeline past;
    private final PiMutex lock;
    private final PiCondition headMoved;
    private final TimelineObserver[] observers;
    private volatile int observerCount;
    private volatile boolean closed;
    private volatile long planned;
    private volatile long rejected;
    private volatile long replaced;
    private volatile long cancelled;
    // Written by the engine's thread under the lock, read by it after awaitDue returns.
    long dueSeenNanos;
    boolean dueSleptFor;
    boolean dueSpun;
    private Action sleptFor;
    private Action spunFor;
    // Counts changes of the head (under the lock); the engine's spin, outside it, watches it.
    private volatile long headMoves;

    /**
     * @param name whose timeline this is (the component), for traces and errors
     * @param futureCapacity actions the future timeline holds at most
     * @param pastCapacity executed intervals the past timeline keeps
     * @param maxObservers observers that may be registered
     */
    public RealTimeLine(String name, int futureCapacity, int pastCapacity, int maxObservers) {
        if (futureCapacity < 1) {
            throw new IllegalArgumentException("timeline '" + name + "': future capacity " + futureCapacity + " < 1");
        }
        this.name = name;
        this.future = new Action[futureCapacity];
        this.past = new PastTimeline(name, pastCapacity);
        this.lock = new PiMutex("timeline '" + name + "'");
        this.headMoved = lock.newCondition();
        this.observers = new TimelineObserver[Math.max(0, maxObservers)];
    }

    public String name() { return name; }

    /** The current time on the cell's monotonic clock (nanoseconds; the planned instants' time base). */
    public long now() { return System.nanoTime(); }

    public PastTimeline past() { return past; }

    public int futureCapacity() { return future.length; }

    public OverflowPolicy futureOverflowPolicy() { return OverflowPolicy.REJECT_NEWEST; }

    /** Actions planned so far (accepted). */
    public long planned() { return planned; }

    /** Plans refused because the future timeline was full. */
    public long rejected() { return rejected; }

    /** First actions replaced before they started ({@link #replaceFirst}). */
    public long replaced() { return replaced; }

    /** Actions taken off the future timeline before they started ({@link #cancel}). */
    public long cancelled() { return cancelled; }

    /** Set-up: {@code o} is told of head changes and of entries into the past. */
    public synchronized void addObserver(TimelineObserver o) {
        if (observerCount == observers.length) {
            throw new IllegalStateException("timeline '" + name + "' already has its " + observers.length + " observers");
        }
        observers[observerCount] = o;
        observerCount = observerCount + 1;
    }

    /**
     * Plans {@code action} to run from {@code beginNanos} to {@code endNanos} (a begin already past
     * is allowed: the engine runs it at once, late). Equal begins run in the order planned.
     *
     * @return false if the future timeline is full (counted; the action stays unplanned)
     * @throws IllegalStateException if the action is already planned or running
     */
    public boolean plan(Action action, long beginNanos, long endNanos) {
        if (endNanos < beginNanos) {
            throw new IllegalArgumentException(action + ": planned end " + endNanos + " before begin " + beginNanos);
        }
        Action head;
        lock.lock();
        try {
            if (!insert(action, beginNanos, endNanos)) {
                return false;
            }
            head = future[0] == action ? action : null;
        } finally {
            lock.unlock();
        }
        if (head != null) {
            notifyHead(head);
        }
        return true;
    }

    /**
     * Replaces the first action of the future timeline with {@code replacement}, if the first has
     * not started yet (the engine takes an action off the future only as it starts it).
     *
     * @return false if the future timeline was empty (nothing to replace: {@code replacement} is not planned)
     */
    public boolean replaceFirst(Action replacement, long beginNanos, long endNanos) {
        if (endNanos < beginNanos) {
            throw new IllegalArgumentException(replacement + ": planned end " + endNanos + " before begin " + beginNanos);
        }
        Action head;
        lock.lock();
        try {
            if (size == 0) {
                return false;
            }
            checkPlannable(replacement);
            removeAt(0).state = Action.State.IDLE;
            replaced++;
            insert(replacement, beginNanos, endNanos);  // room: one was just removed
            headMoves++;
            head = future[0];
        } finally {
            lock.unlock();
        }
        notifyHead(head);
        return true;
    }

    /** Takes {@code action} off the future timeline. @return false if it was not on it (ran, running, or never planned) */
    public boolean cancel(Action action) {
        Action head;
        boolean headChanged;
        lock.lock();
        try {
            int i = indexOf(action);
            if (i < 0) {
                return false;
            }
            removeAt(i).state = Action.State.IDLE;
            cancelled++;
            headChanged = i == 0;
            head = size > 0 ? future[0] : null;
            if (headChanged) {
                headMoves++;
                headMoved.signal();
            }
        } finally {
            lock.unlock();
        }
        if (headChanged) {
            notifyHead(head);
        }
        return true;
    }

    /** The first planned action (not started), or null. */
    public Action first() {
        lock.lock();
        try {
            return size > 0 ? future[0] : null;
        } finally {
            lock.unlock();
        }
    }

    /** Actions on the future timeline. */
    public int futureSize() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ engine side

    /**
     * The engine's wait: sleeps (absolute CLOCK_MONOTONIC deadline) until the first action's
     * planned begin minus the engine's anticipation, waking early whenever the head changes, then
     * takes the action off the future timeline and returns it. Returns at once with an action that
     * is already due (late). Allocation-free.
     *
     * <p>With a {@linkplain ExecutionEngine#wakeGuardNanos wake guard} it sleeps only until the guard before that instant
     * and spins on the clock for the rest, the lock released (a planner may still replace the
     * head): a wake-up that comes within the guard no longer shows in the action's start, which
     * then depends on the clock read, not on the platform's wake-up latency.
     *
     * @return the action to run now, or null once the timeline is closed
     */
    Action awaitDue(ExecutionEngine engine) {
        lock.lock();
        try {
            while (!closed) {
                if (size == 0) {
                    sleptFor = null;
                    headMoved.await();
                    continue;
                }
                Action head = future[0];
                long wake = head.interval.plannedBeginNanos - engine.anticipationNanos();
                long now = System.nanoTime();
                if (now >= wake) {
                    removeAt(0);
                    head.state = Action.State.RUNNING;
                    dueSeenNanos = now;
                    dueSleptFor = sleptFor == head;
                    dueSpun = dueSleptFor && spunFor == head;
                    sleptFor = null;
                    spunFor = null;
                    return head;
                }
                long guardNanos = engine.wakeGuardNanos();
                if (sleptFor != head) {
                    spunFor = null;
                }
                sleptFor = head;
                if (now < wake - guardNanos) {
                    headMoved.awaitUntil(wake - guardNanos);
                    continue;
                }
                // Within the guard: awake before the action is due, spin to it. The head is read
                // again under the lock afterwards (it may have been replaced meanwhile).
                spunFor = head;
                long moves = headMoves;
                lock.unlock();
                try {
                    // No Thread.onSpinWait(): in a virtual machine a loop of PAUSEs makes the
                    // hypervisor take the vCPU away (pause-loop exiting), which is the jitter the
                    // spin is there to avoid. The clock read (vDSO) is the loop's whole body.
                    while (System.nanoTime() < wake && headMoves == moves && !closed) {
                        // spin
                    }
                } finally {
                    lock.lock();
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** The engine stops: {@link #awaitDue} returns null. */
    void close() {
        lock.lock();
        try {
            closed = true;
            headMoved.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void notifyPast(long seq) {
        int n = observerCount;
        for (int i = 0; i < n; i++) {
            observers[i].enteredPast(past, seq);
        }
    }

    // ------------------------------------------------------------------ internals (lock held)

    private void checkPlannable(Action a) {
        if (a.state != Action.State.IDLE) {
            throw new IllegalStateException(a + " is already " + (a.state == Action.State.PLANNED ? "planned" : "running")
                    + " (plan an action again once it has run)");
        }
    }

    private boolean insert(Action a, long begin, long end) {
        checkPlannable(a);
        if (size == future.length) {
            rejected++;
            return false;
        }
        int i = size;
        while (i > 0 && future[i - 1].interval.plannedBeginNanos > begin) {
            future[i] = future[i - 1];
            i--;
        }
        future[i] = a;
        size++;
        a.interval.plan(begin, end);
        a.clobber = false;
        a.timeline = this;
        a.state = Action.State.PLANNED;
        planned++;
        if (i == 0) {
            headMoves++;
            headMoved.signal();
        }
        return true;
    }

    private int indexOf(Action a) {
        for (int i = 0; i < size; i++) {
            if (future[i] == a) {
                return i;
            }
        }
        return -1;
    }

    private Action removeAt(int i) {
        Action a = future[i];
        System.arraycopy(future, i + 1, future, i, size - i - 1);
        size--;
        future[size] = null;
        return a;
    }

    private void notifyHead(Action head) {
        int n = observerCount;
        for (int i = 0; i < n; i++) {
            observers[i].headChanged(head);
        }
    }

    @Override
    public String toString() {
        return "RealTimeLine[" + name + "]";
    }
}
