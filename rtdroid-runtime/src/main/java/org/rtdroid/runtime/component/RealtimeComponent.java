package org.rtdroid.runtime.component;

import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.alarm.PendingIntent;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.BulkPublisher;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.memory.ImmortalScope;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * What every real-time component (service or receiver) shares: its name and priority from the
 * manifest, its persistent and release scopes, and the channel ends its intent-filters declare.
 * Look channel ends up once (in {@code onCreate}); using them afterwards allocates nothing.
 */
public abstract class RealtimeComponent {
    ComponentRuntime runtime;

    final ComponentRuntime rt() {
        ComponentRuntime r = runtime;
        if (r == null) {
            throw new IllegalStateException(getClass().getName() + " is not deployed: the runtime creates components");
        }
        return r;
    }

    /** The class name the manifest declares. */
    public final String name() { return rt().decl().className(); }

    /** The declared priority (the SCHED_FIFO priority of this component's thread). */
    public final int priority() { return rt().decl().priority(); }

    public final String applicationName() { return rt().app().appName(); }

    /** Data living as long as this component. */
    public final Scope persistentScope() { return rt().persistentScope(); }

    /** Data of the current callback; cleared when it returns. */
    public final Scope releaseScope() { return rt().releaseScope(); }

    /** Data this component builds in onCreate/onStartCommand and keeps (manifest {@code immortal});
     *  allocation closes once the component runs. */
    public final ImmortalScope immortalScope() { return rt().immortalScope(); }

    /** Sending end of a message channel this component publishes on (at this component's priority). */
    public final MessagePublisher messagePublisher(String channel) { return rt().messagePublisher(channel, priority()); }

    /** Sending end of a broadcast channel this component publishes on. */
    public final BroadcastPublisher broadcastPublisher(String channel) { return rt().broadcastPublisher(channel, priority()); }

    /** Sending end of a bulk channel this component publishes on. */
    public final BulkPublisher bulkPublisher(String channel) { return rt().bulkPublisher(channel, priority()); }

    /** A message channel this component consumes, for polling ({@link MessageChannel#receive}). */
    public final MessageChannel messageChannel(String channel) { return rt().consumedMessageChannel(channel); }

    /** A bulk channel this component receives on, for polling ({@link BulkChannel#receive}). */
    public final BulkChannel bulkChannel(String channel) { return rt().consumedBulkChannel(channel); }

    /** A cross-context channel this component publishes on (RT → Android). */
    public final CrossContextPublisher crossContextPublisher(String channel) { return rt().crossContextPublisher(channel); }

    /**
     * The application's real-time AlarmManager (Android's {@code getSystemService(ALARM_SERVICE)}):
     * its {@code set}, {@code setExact}, {@code setRepeating} and {@code cancel} allocate nothing.
     *
     * @throws IllegalStateException the manifest declares no {@code <alarms>}
     */
    public final AlarmManager alarmManager() { return rt().alarmManager(); }

    /**
     * The application's real-time SensorManager for this component (Android's
     * {@code getSystemService(SENSOR_SERVICE)}): listeners registered through it run at this
     * component's priority. Register in {@code onCreate} or {@code onStartCommand} (set-up).
     *
     * @throws IllegalStateException the manifest declares no {@code <sensors>}
     */
    public final SensorManager sensorManager() { return rt().sensorManager(); }

    /**
     * Android's {@code PendingIntent.getBroadcast}: what an alarm delivers to the receiver declared
     * as {@code receiverClass} (a {@code <receiver>} of this application that subscribes to no
     * channel), with {@code requestCode} as the intent's {@code what}; at one instant it is ordered
     * by this component's priority. Set-up only (allocates): call it in {@code onCreate}.
     */
    public final PendingIntent alarmBroadcast(String receiverClass, int requestCode) {
        return alarmManager().getBroadcast(receiverClass, requestCode, priority());
    }

    /** Σ deadline misses of this application's periodic tasks (allocation-free). */
    public final long applicationDeadlineMisses() { return rt().app().deadlineMisses(); }

    /** Worst release lateness of this application's periodic tasks (allocation-free). */
    public final long applicationWorstLatenessNanos() { return rt().app().worstLatenessNanos(); }

    /** Number of callbacks this component has completed. */
    public final long callbacks() { return rt().callbacks(); }

    /**
     * Set-up: the code of this component's {@code <deadline-miss-handler>}, released at its declared
     * priority after a callback misses its deadline (a receiver's: its minimum inter-arrival time).
     */
    public final void onDeadlineMiss(JobEventHandler handler) {
        rt().setJobHandler(null, org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.DEADLINE_MISS, handler);
    }

    /** Set-up: the code of this component's {@code <cost-overrun-handler>} (a callback used more CPU than its cost). */
    public final void onCostOverrun(JobEventHandler handler) {
        rt().setJobHandler(null, org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.COST_OVERRUN, handler);
    }

    /** This component's recent callbacks (planned = send and deadline, actual = start and end). */
    public final org.rtdroid.runtime.reflection.PastTimeline pastCallbacks() { return rt().jobs().past(); }
}
