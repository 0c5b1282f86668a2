package org.rtdroid.runtime.component;

import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.channel.BroadcastChannel;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.InboundSource;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/** What a component's runtime needs from its deployed application (implemented by the bootstrap). */
public interface AppContext {
    String appName();

    ChannelDecl channelDecl(String name);

    MessageChannel messageChannel(String name);

    BroadcastChannel broadcastChannel(String name);

    /** The subscriber view of {@code componentClass} on a broadcast channel. */
    InboundSource broadcastSubscriber(String channel, String componentClass);

    BulkChannel bulkChannel(String name);

    /** Inbound queue of a cross-context channel (Android → RT). */
    MessageChannel crossContextInbound(String name);

    CrossContextPublisher crossContextPublisher(String name);

    /** The application's AlarmManager, or null if its manifest declares no {@code <alarms>}. */
    AlarmManager alarmManager();

    /** The application's sensors, or null if its manifest declares no {@code <sensors>}. */
    default SensorService sensorService() {
        return null;
    }

    /**
     * The dispatcher the application's deadline-miss and cost-overrun handlers run on (a thread
     * per handler at its priority), or null when its manifest declares none.
     */
    default org.rtdroid.runtime.event.HandlerDispatcher jobHandlerDispatcher() {
        return null;
    }

    /** The scheduling policy for a thread at {@code priority}, or null to stay SCHED_OTHER. */
    RealtimePolicy policyFor(int priority);

    /**
     * The one CPU the partition of the cell places {@code component} (its simple name) on, which
     * every real-time thread of the component is pinned to, or null when it is not partitioned (a
     * cell of one CPU, not real-time, or a component the analysis has no task for): its threads
     * then keep {@link #policyFor}'s CPUs.
     */
    default CpuSet cpuOf(String component) {
        return null;
    }

    /**
     * The priority component and task threads start up at (onCreate, onStartCommand, class loading)
     * before they rise to their declared priority: 0, SCHED_OTHER. Start-up is CPU-bound work of
     * milliseconds to hundreds of milliseconds; at any SCHED_FIFO priority it would either preempt
     * the components already running or, at the cell's lowest, starve the JVM's own SCHED_OTHER
     * threads on the cell's CPUs (VM thread, JIT, GC workers), which running real-time threads
     * then wait for (measured on the host board: a start-up at SCHED_FIFO 1 ran 100% of the CPU
     * for 200 ms, and such phases stalled 8 ms tasks by up to 0.87 s).
     */
    default int startupPriority() {
        return 0;
    }

    /** CLOCK_MONOTONIC time all periodic tasks of the app count their start offsets from; 0 until set. */
    long epochNanos();

    /** Σ deadline misses over the application's periodic tasks. */
    long deadlineMisses();

    /** Worst release lateness over the application's periodic tasks. */
    long worstLatenessNanos();

    /** Reports a component failure (off the real-time path: allocates to log). */
    void log(String line);
}
