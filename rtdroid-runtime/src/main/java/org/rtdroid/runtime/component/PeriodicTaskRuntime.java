package org.rtdroid.runtime.component;

import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.manifest.PeriodicTaskDecl;
import org.rtdroid.runtime.memory.HeapBoundExceededError;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.os.CpuClock;
import org.rtdroid.runtime.os.ExecutionMeter;
import org.rtdroid.runtime.os.FlightRecorder;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.reflection.PastTimeline;

/**
 * Runs one periodic task: releases at epoch + start offset + k × period, slept to with
 * {@code clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)}. A late release runs at once and its
 * lateness is recorded. Releases whose whole period has already passed when the previous one
 * completes are skipped: counted as skipped and as deadline misses, never run back to back. (Run
 * back to back after a stall, a task would hold its CPU at its real-time priority until the backlog
 * is gone; if it was slow because it had been deoptimised, the JIT, SCHED_OTHER on the same CPU,
 * could not recompile it meanwhile: measured as 100% of the CPU for 0.94 s on the host board.)
 * <ul>
 *   <li>lateness: wake-up time − scheduled release time (worst kept);</li>
 *   <li>deadline miss: completion − release time &gt; deadline;</li>
 *   <li>overrun: completion − release time &gt; period (the next release is already due);</li>
 *   <li>execution: the CPU time the release's code used ({@link CpuClock}, worst kept), and a cost
 *       overrun when it exceeds the cost the admission analysis assumed for the task (its declared
 *       wcet): the analysed response time is then no bound on this board.</li>
 * </ul>
 * Every release is recorded in the task's past timeline ({@link #jobs()}: release and deadline
 * planned, wake-up and completion actual, clobbered when the previous release ended after this
 * one was due), and releases the task's deadline-miss or cost-overrun handler when it calls for one;
 * a skip is one entry flagged {@link PastTimeline#SKIPPED} for its first skipped release.
 */
public final class PeriodicTaskRuntime {
    private final PeriodicTaskDecl decl;
    private final ComponentRuntime service;
    private final PeriodicTask task;
    private final Scope releaseScope;
    private final HeapBoundExceededError heapError;
    private volatile boolean running = true;
    private volatile boolean ready;
    private volatile Throwable startFailure;
    private volatile int tid;
    private volatile Thread thread;
    private volatile long currentReleaseNanos;
    private volatile long releases;
    private volatile long deadlineMisses;
    private volatile long overruns;
    private volatile long skippedReleases;
    private volatile long worstLatenessNanos;
    private volatile long lastLatenessNanos;
    private volatile long worstResponseNanos;
    private final ExecutionMeter execution;
    private final JobReflection jobs;
    private final byte[] traceName;  // the task in the flight recorder's marker (FlightRecorder)
    private long previousEndNanos = Long.MIN_VALUE;
    private volatile long heapViolations;
    private volatile long lastHeapBytes;

    PeriodicTaskRuntime(PeriodicTaskDecl decl, ComponentRuntime service, PeriodicTask task, Scope releaseScope) {
        this.decl = decl;
        this.service = service;
        this.task = task;
        this.releaseScope = releaseScope;
        this.heapError = new HeapBoundExceededError(service.decl().simpleName() + "/" + decl.name(), decl.releaseBytes());
        this.execution = new ExecutionMeter(decl.wcetNanos());
        this.traceName = (service.decl().simpleName() + "/" + decl.name()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.jobs = new JobReflection(service.decl().simpleName() + "/" + decl.name(),
                decl.handler(org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.DEADLINE_MISS),
                decl.handler(org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.COST_OVERRUN));
        task.runtime = this;
    }

    public PeriodicTaskDecl decl() { return decl; }
    ComponentRuntime service() { return service; }
    public PeriodicTask task() { return task; }
    Scope releaseScope() { return releaseScope; }
    long currentReleaseNanos() { return currentReleaseNanos; }
    public long releases() { return releases; }
    public long deadlineMisses() { return deadlineMisses; }
    public long overruns() { return overruns; }
    /** Releases skipped because their period had passed before they could start (also deadline misses). */
    public long skippedReleases() { return skippedReleases; }
    public long worstLatenessNanos() { return worstLatenessNanos; }
    public long lastLatenessNanos() { return lastLatenessNanos; }
    public long worstResponseNanos() { return worstResponseNanos; }
    /** The most CPU time one release's code used (0 before the first, or without a CPU clock). */
    public long worstExecutionNanos() { return execution.worstNanos(); }
    /** Releases whose code used more CPU time than {@link #costNanos()} (0 when no cost is known). */
    public long costOverruns() { return execution.overruns(); }
    /** The release (from 1) that overran its cost last; 0: none did. Early ones only: cold code. */
    public long lastCostOverrun() { return execution.lastOverrun(); }
    /** The cost (WCET) the admission analysis assumed for the task; 0: none declared. */
    public long costNanos() { return execution.costNanos(); }

    /** Sets the cost the analysis assumed (the deployed model's, which may come from {@code <time>}). */
    public void costNanos(long nanos) { execution.costNanos(nanos); }
    public long heapViolations() { return heapViolations; }
    public long lastHeapBytes() { return lastHeapBytes; }
    /** The task's recent releases and its miss and overrun handlers. */
    public JobReflection jobs() { return jobs; }
    public Thread thread() { return thread; }
    /** The thread is set up and waits for the application's epoch. */
    public boolean isReady() { return ready; }
    /** Why the thread ended before it was ready (it could not be pinned to its CPU), or null. */
    public Throwable startFailure() { return startFailure; }
    /** The kernel thread id of the task's thread (0 before it started). */
    public int tid() { return tid; }
    public boolean isRunning() { return running && thread != null && thread.isAlive(); }

    void start(String name) {
        Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        thread = t;
        t.start();
    }

    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    void join(long millis) {
        Thread t = thread;
        if (t != null) {
            try {
                t.join(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        // Set-up at the start-up priority (SCHED_OTHER, see AppContext#startupPriority); the
        // declared priority as soon as it is done, so that the first release, a few ms after the
        // epoch is published, is not left to SCHED_OTHER scheduling. The wait itself is sleeping.
        tid = Linux.gettid();
        try {
            // Pinned to the component's CPU here, before the first release (ComponentRuntime#applyPolicy).
            service.applyPolicy(service.app().startupPriority());
            // Link the FFM downcalls and create this thread's native scratch now, not in the first release.
            Linux.sleepUntilNanos(Linux.monotonicNanos());
            HeapMeter.currentThreadAllocatedBytes();
            CpuClock.currentThreadNanos();
            service.applyPolicy(decl.priority());
        } catch (IllegalStateException e) {
            startFailure = e;
            running = false;
            return;
        }
        ready = true;
        long epoch;
        while ((epoch = service.app().epochNanos()) == 0) {
            if (!running) {
                return;
            }
            LockSupport.parkNanos(200_000);
        }
        final long period = decl.periodNanos();
        long next = epoch + service.decl().startNanos() + decl.startNanos();
        // The loop body is a method of its own: all task threads share its invocation counter and
        // its compiled code, so a task deployed later runs compiled code from its first release.
        // (Inline in this loop it is reached through on-stack replacement, and a new task thread
        // runs its first ~200 releases interpreted before it jumps into the OSR code; measured.)
        while (running && service.isRunning()) {
            Linux.sleepUntilNanos(next);
            if (!running || !service.isRunning()) {
                break;
            }
            long end = release(next, period);
            next += period;
            long behind = end - next;
            if (behind >= period) {
                long skip = behind / period;
                jobs.record(next, next + decl.deadlineNanos(), end, end,
                        PastTimeline.SKIPPED | PastTimeline.DEADLINE_MISS | PastTimeline.LATE);
                next += skip * period;
                skippedReleases += skip;
                deadlineMisses += skip;
            }
        }
    }

    /**
     * One release due at {@code next}: run the task, measure it, reset its scope. Allocation-free.
     *
     * @return when it completed (System.nanoTime)
     */
    private long release(long next, long period) {
        long now = System.nanoTime();
        long lateness = now - next;
        lastLatenessNanos = lateness;
        if (lateness > worstLatenessNanos) {
            worstLatenessNanos = lateness;
        }
        currentReleaseNanos = next;
        long before = HeapMeter.currentThreadAllocatedBytes();
        long cpu = ExecutionMeter.start();
        int flags = previousEndNanos > next ? PastTimeline.CLOBBERED : 0;
        try {
            task.onRelease();
        } catch (Throwable t) {
            flags |= PastTimeline.FAILED;
            service.fail(t, decl.name(), releases + 1);
        }
        if (execution.end(cpu, releases + 1)) {
            flags |= PastTimeline.COST_OVERRUN;
        }
        long used = HeapMeter.currentThreadAllocatedBytes() - before;
        lastHeapBytes = used;
        releaseScope.reset();
        long end = System.nanoTime();
        long response = end - next;
        if (response > worstResponseNanos) {
            worstResponseNanos = response;
        }
        boolean missed = response > decl.deadlineNanos();
        if (missed) {
            deadlineMisses++;
            flags |= PastTimeline.DEADLINE_MISS | PastTimeline.LATE;
        }
        if (response > period) {
            overruns++;
        }
        previousEndNanos = end;
        jobs.record(next, next + decl.deadlineNanos(), now, end, flags);
        long n = releases + 1;
        releases = n;
        FlightRecorder.released(traceName, n, response, missed);
        if (n > ComponentRuntime.HEAP_WARMUP_CALLBACKS && used > decl.releaseBytes()) {
            heapViolations++;
            service.fail(heapError.record(used), decl.name(), n);
        }
        return end;
    }
}
