package org.rtdroid.runtime.reflection;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The mechanism of temporal reflection (seed 004, section 4.2, Listing 3): one thread that sleeps
 * until the first action of its {@link RealTimeLine} is due (its planned begin minus the
 * {@linkplain #anticipationNanos() anticipation}, on an absolute CLOCK_MONOTONIC deadline), runs
 * it, stamps its actual begin and end, sets its clobber flag when the previous action ended after
 * its planned begin, records it in the past timeline and hands it to the {@link Strategist}.
 *
 * <p>It runs every action <em>unconditionally</em>, late ones included: what a late action means
 * and what to do about it is policy, the strategist's. An action that throws is recorded with
 * {@link PastTimeline#FAILED} and counted; the engine goes on.
 *
 * <p>The thread's scheduling is the caller's: {@link #start(String, Runnable)} runs a set-up step
 * on the new thread first (a reflective component's engine takes a priority above the component's
 * other work on its CPU, and is pinned there). After start-up the loop allocates nothing.
 */
public final class ExecutionEngine implements Calibratable {
    /** Actions the engine runs on its own before it serves its timeline (the JIT's warm-up). */
    static final int WARM_UP_ACTIONS = 12_000;
    private final RealTimeLine timeline;
    private final Strategist strategist;
    private final CountDownLatch started = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile int tid;
    private volatile Throwable startFailure;
    private volatile long anticipationNanos;
    private volatile long wakeGuardNanos;
    private volatile long executed;
    private volatile long clobbered;
    private volatile long late;
    private volatile long failures;
    private volatile Throwable lastFailure;
    private volatile long lastOverheadNanos;
    private volatile long worstOverheadNanos;
    private volatile long worstLatenessNanos;
    private boolean lastSleptFor;
    private long previousEnd = Long.MIN_VALUE;
    private boolean lastSpun;

    public ExecutionEngine(RealTimeLine timeline, Strategist strategist) {
        this.timeline = timeline;
        this.strategist = strategist;
    }

    /** A set-up step that applies {@code policy} to the engine's thread (null: leave it as it is). */
    public static Runnable applying(RealtimePolicy policy) {
        return () -> {
            if (policy != null) {
                RealtimeThreads.applyToCurrentThread(policy);
            }
        };
    }

    /**
     * Starts the engine's thread, which runs {@code setUp} (its priority, its CPU) and then the loop.
     * A {@code setUp} that throws ends the thread: {@link #awaitStarted} reports it.
     */
    public void start(String threadName, Runnable setUp) {
        Thread t = Thread.ofPlatform().name(threadName).daemon(true).unstarted(() -> run(setUp));
        thread = t;
        t.start();
    }

    /** Waits until the engine's thread is set up. @return null, or why it could not start */
    public Throwable awaitStarted(long timeoutMillis) throws InterruptedException {
        if (!started.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            return new IllegalStateException("engine of timeline '" + timeline.name() + "' did not start within "
                    + timeoutMillis + " ms");
        }
        return startFailure;
    }

    /** Stops the engine: the action running finishes, planned ones are left on the future timeline. */
    public void stop() {
        running = false;
        timeline.close();
    }

    public boolean join(long millis) throws InterruptedException {
        return RealtimeThreads.join(thread, millis);
    }

    private void run(Runnable setUp) {
        tid = Linux.gettid();
        try {
            setUp.run();
            warmUp();
        } catch (RuntimeException e) {
            startFailure = e;
            running = false;
            started.countDown();
            return;
        }
        started.countDown();
        while (running && serveOne(timeline, strategist)) {
            // one action per call: see warmUp
        }
    }

    /**
     * Runs the engine's own path (the wait's lock and clock, the past timeline's entry, the
     * observers' loop) on a private timeline until the JIT has compiled it, then forgets what it
     * counted. The loop's turn is one call ({@link #serveOne}) so that it is compiled at all: as
     * the body of {@link #run} it would stay interpreted (one invocation; an on-stack compile needs
     * tens of thousands of turns, hours at 25 actions a second), and the interpreted return from
     * the wait and call of the action cost about 6 us between the wake-up and the action's start
     * on the development host. The strategist's code is the app's to warm.
     */
    private void warmUp() {
        RealTimeLine own = new RealTimeLine(timeline.name() + "/warm-up", 1, 16, 0);
        Action idle = new Action(0, "warm-up") {
            @Override
            public void perform() { }
        };
        Strategist none = (a, tl) -> { };
        RealTimeLine serving = timeline;
        for (int i = 0; i < WARM_UP_ACTIONS; i++) {
            long now = own.now();
            own.plan(idle, now, now);
            serveOne(own, none);
        }
        own.close();
        if (serving != timeline) {
            throw new IllegalStateException("timeline changed during warm-up");
        }
        previousEnd = Long.MIN_VALUE;
        executed = 0;
        clobbered = 0;
        late = 0;
        failures = 0;
        lastFailure = null;
        lastOverheadNanos = 0;
        worstOverheadNanos = 0;
        worstLatenessNanos = 0;
    }

    /** Waits for {@code tl}'s next due action and executes it. @return false once {@code tl} is closed */
    private boolean serveOne(RealTimeLine tl, Strategist s) {
        Action a = tl.awaitDue(this);
        if (a == null) {
            return false;
        }
        execute(tl, s, a);
        return true;
    }

    /** One action: run it, stamp it, record it in {@code tl}'s past, tell the observers and {@code s}. */
    private void execute(RealTimeLine tl, Strategist s, Action a) {
        long woke = tl.dueSeenNanos;
        lastSleptFor = tl.dueSleptFor;
        lastSpun = tl.dueSpun;
        TimeInterval in = a.interval;
        long begin = System.nanoTime();
        in.actualBeginNanos = begin;
        int flags = 0;
        try {
            a.perform();
        } catch (Throwable t) {
            flags |= PastTimeline.FAILED;
            failures++;
            lastFailure = t;
        }
        long end = System.nanoTime();
        in.actualEndNanos = end;
        if (begin - in.plannedBeginNanos > worstLatenessNanos) {
            worstLatenessNanos = begin - in.plannedBeginNanos;
        }
        // The seed's clobber: the previous action's late end delayed this one's start.
        boolean clobber = previousEnd > in.plannedBeginNanos;
        a.clobber = clobber;
        previousEnd = end;
        if (clobber) {
            flags |= PastTimeline.CLOBBERED;
            clobbered++;
        }
        if (end > in.plannedEndNanos) {
            flags |= PastTimeline.LATE;
            late++;
        }
        PastTimeline past = tl.past();
        past.nameClass(a.classTag(), a.name());
        long seq = past.record(a.classTag(), in.plannedBeginNanos, in.plannedEndNanos, begin, end, flags);
        a.state = Action.State.IDLE;  // the strategist may plan it again
        executed++;
        tl.notifyPast(seq);
        long handed = System.nanoTime();
        long overhead = (begin - woke) + (handed - end);
        lastOverheadNanos = overhead;
        if (overhead > worstOverheadNanos) {
            worstOverheadNanos = overhead;
        }
        try {
            s.executed(a, tl);
        } catch (Throwable t) {
            failures++;
            lastFailure = t;
        }
    }

    public RealTimeLine timeline() { return timeline; }

    @Override
    public long anticipationNanos() { return anticipationNanos; }

    /** Sets how long before an action's planned begin the engine wakes (the calibration value). */
    @Override
    public void anticipationNanos(long nanos) { anticipationNanos = nanos; }

    /**
     * Sets the wake guard: the engine wakes this much before an action's (anticipated) instant and
     * spins on the clock for the rest, so that the platform's wake-up jitter up to the guard does
     * not reach the action's start. It costs the guard in CPU time per slept-for action, at the
     * engine's priority (count it in the engine's budget). 0, the default, is the seed's engine: it
     * only sleeps.
     */
    public void wakeGuardNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("wake guard " + nanos + " ns < 0");
        }
        wakeGuardNanos = nanos;
    }

    public long wakeGuardNanos() { return wakeGuardNanos; }

    /**
     * Whether the engine was awake, spinning within its guard, before the last action was due: its
     * start then shows the engine's own offset, not the platform's wake-up latency.
     */
    public boolean lastSpun() { return lastSpun; }

    public long executed() { return executed; }
    public long clobbered() { return clobbered; }
    /** Actions that ended after their planned end. */
    public long late() { return late; }
    /** Actions, and strategist calls, that threw. */
    public long failures() { return failures; }
    public Throwable lastFailure() { return lastFailure; }

    /**
     * The engine's own time on the last action's path: from its wake-up (or, for an action already
     * due, from finding it due) to the action's start, plus from its end to the strategist's call
     * (the past timeline's entry and its observers). Read it in the strategist for that action.
     */
    public long lastOverheadNanos() { return lastOverheadNanos; }

    public long worstOverheadNanos() { return worstOverheadNanos; }

    /** The latest an action started after its planned begin (clobbered ones included). */
    public long worstLatenessNanos() { return worstLatenessNanos; }

    /**
     * Whether the engine slept until the last action was due (rather than finding it already due:
     * planned in the past, or clobbered). Only such an action's begin error measures the wake-up.
     */
    public boolean lastSleptFor() { return lastSleptFor; }

    public Thread thread() { return thread; }

    /** The engine thread's kernel id (0 before it started). */
    public int tid() { return tid; }

    public boolean isRunning() {
        Thread t = thread;
        return running && t != null && t.isAlive();
    }
}
