package org.rtdroid.runtime.component;

import org.rtdroid.runtime.channel.BroadcastChannel;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.InboundSource;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.os.RealtimePolicy;
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

    /** The scheduling policy for a thread at {@code priority}, or null to stay SCHED_OTHER. */
    RealtimePolicy policyFor(int priority);

    /**
     * The priority component and task threads start up at (onCreate, onStartCommand, class loading,
     * waiting for the epoch) before they rise to their declared priority: the cell's lowest, so
     * deploying an application never preempts the components already running. Default 1.
     */
    default int startupPriority() {
        return 1;
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
