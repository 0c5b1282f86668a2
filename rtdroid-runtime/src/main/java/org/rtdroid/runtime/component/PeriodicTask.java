package org.rtdroid.runtime.component;

import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.BulkPublisher;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.memory.Scope;

/**
 * A periodic task (dissertation 4.2.2), a sub-component of a service: {@link #onRelease} runs at
 * absolute release times (start offset + k × period, {@code clock_nanosleep(TIMER_ABSTIME)}) on the
 * task's own real-time thread. Deadline misses, overruns and release lateness are counted and
 * exposed, never absorbed.
 */
public abstract class PeriodicTask {
    PeriodicTaskRuntime runtime;

    /** One release; runs in this task's release scope, cleared when it returns. */
    public abstract void onRelease();

    final PeriodicTaskRuntime rt() {
        PeriodicTaskRuntime r = runtime;
        if (r == null) {
            throw new IllegalStateException("task is not registered");
        }
        return r;
    }

    public final String taskName() { return rt().decl().name(); }
    public final int priority() { return rt().decl().priority(); }
    public final long periodNanos() { return rt().decl().periodNanos(); }
    public final long deadlineNanos() { return rt().decl().deadlineNanos(); }

    /** Scope of the current release; cleared after every release. */
    public final Scope releaseScope() { return rt().releaseScope(); }

    /** The scheduled (ideal) time of the current release, CLOCK_MONOTONIC nanoseconds. */
    public final long releaseTimeNanos() { return rt().currentReleaseNanos(); }

    public final long releases() { return rt().releases(); }
    public final long deadlineMisses() { return rt().deadlineMisses(); }
    public final long overruns() { return rt().overruns(); }
    /** Releases skipped after an overload (their period had passed); counted in {@link #deadlineMisses} too. */
    public final long skippedReleases() { return rt().skippedReleases(); }
    public final long worstLatenessNanos() { return rt().worstLatenessNanos(); }

    /** This task's recent releases (planned = release and deadline, actual = wake-up and completion). */
    public final org.rtdroid.runtime.reflection.PastTimeline pastReleases() { return rt().jobs().past(); }

    /** Sending end of a message channel the parent service publishes on, at this task's priority. */
    public final MessagePublisher messagePublisher(String channel) {
        return rt().service().messagePublisher(channel, priority());
    }

    public final BroadcastPublisher broadcastPublisher(String channel) {
        return rt().service().broadcastPublisher(channel, priority());
    }

    public final BulkPublisher bulkPublisher(String channel) {
        return rt().service().bulkPublisher(channel, priority());
    }
}
