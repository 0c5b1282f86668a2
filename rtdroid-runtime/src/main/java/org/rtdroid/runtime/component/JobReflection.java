package org.rtdroid.runtime.component;

import org.rtdroid.runtime.event.AsyncEvent;
import org.rtdroid.runtime.event.AsyncEventHandler;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.manifest.JobHandlerDecl;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.reflection.ExecutedInterval;
import org.rtdroid.runtime.reflection.PastTimeline;

/**
 * The reflective view of one source of jobs (a periodic task's releases, a component's callbacks):
 * its recent jobs as a {@link PastTimeline} (planned begin = release, planned end = deadline,
 * actual begin and end, flags) and the miss and overrun handlers its manifest declares, released
 * as the job is recorded. Written only by the thread that runs the jobs; allocation-free.
 */
public final class JobReflection {
    /**
     * Recent jobs each task and component keeps (what {@code rtdroid rt trace} can show): about a
     * second of a 1 kHz task, 40 s of a 25 Hz one; 64 bytes each, allocated at start-up.
     */
    public static final int PAST_JOBS = 1024;

    private final PastTimeline past;
    private final Release miss;
    private final Release overrun;

    JobReflection(String name, JobHandlerDecl missDecl, JobHandlerDecl overrunDecl) {
        this.past = new PastTimeline(name, PAST_JOBS);
        this.miss = missDecl == null ? null : new Release(name + "/deadline-miss", missDecl.priority(), past);
        this.overrun = overrunDecl == null ? null : new Release(name + "/cost-overrun", overrunDecl.priority(), past);
    }

    public PastTimeline past() { return past; }

    /** Releases of the deadline-miss handler so far (0 without one). */
    public long missReleases() { return miss == null ? 0 : miss.event.fires(); }

    /** Releases of the cost-overrun handler so far (0 without one). */
    public long overrunReleases() { return overrun == null ? 0 : overrun.event.fires(); }

    boolean declares(JobHandlerDecl.Kind kind) {
        return (kind == JobHandlerDecl.Kind.DEADLINE_MISS ? miss : overrun) != null;
    }

    /** Set-up: the application's code for a declared handler. */
    void set(JobHandlerDecl.Kind kind, JobEventHandler handler, String owner) {
        Release r = kind == JobHandlerDecl.Kind.DEADLINE_MISS ? miss : overrun;
        if (r == null) {
            throw new IllegalArgumentException(owner + " declares no <" + kind.element() + "> in the manifest");
        }
        if (r.app != null) {
            throw new IllegalStateException(owner + ": its " + kind.element() + " is already set");
        }
        r.app = handler;
    }

    /** Set-up: @return the name of a declared handler the application did not set, or null */
    String unset() {
        if (miss != null && miss.app == null) {
            return JobHandlerDecl.Kind.DEADLINE_MISS.element();
        }
        if (overrun != null && overrun.app == null) {
            return JobHandlerDecl.Kind.COST_OVERRUN.element();
        }
        return null;
    }

    /** Set-up: gives the declared handlers their threads (pinned to the owner's CPU, if partitioned). */
    void attach(HandlerDispatcher dispatcher, CpuSet cpu) {
        for (Release r : new Release[] {miss, overrun}) {
            if (r != null) {
                r.pinTo(cpu);
                dispatcher.attach(r);
                r.event.addHandler(r);
            }
        }
    }

    boolean hasHandlers() { return miss != null || overrun != null; }

    /** Records one job and releases the handlers its flags call for. @return its sequence number */
    long record(long plannedBegin, long plannedEnd, long actualBegin, long actualEnd, int flags) {
        long seq = past.record(0, plannedBegin, plannedEnd, actualBegin, actualEnd, flags);
        if (miss != null && (flags & PastTimeline.DEADLINE_MISS) != 0) {
            miss.release(seq);
        }
        if (overrun != null && (flags & PastTimeline.COST_OVERRUN) != 0) {
            overrun.release(seq);
        }
        return seq;
    }

    /** One declared handler: an asynchronous event handler at its priority, over the owner's past. */
    private static final class Release extends AsyncEventHandler {
        final PastTimeline past;
        final AsyncEvent event;
        final ExecutedInterval job = new ExecutedInterval();
        volatile long seq = -1;
        volatile JobEventHandler app;

        Release(String name, int priority, PastTimeline past) {
            super(name, priority);
            this.past = past;
            this.event = new AsyncEvent(name, 1);
        }

        void release(long jobSeq) {
            seq = jobSeq;
            event.fire();
        }

        @Override
        public void handleAsyncEvent() {
            JobEventHandler h = app;
            // A job overwritten meanwhile (over PAST_JOBS newer ones) is not handed over.
            if (h != null && past.read(seq, job)) {
                h.onJob(job);
            }
        }
    }
}
