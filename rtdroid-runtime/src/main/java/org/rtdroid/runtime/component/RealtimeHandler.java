package org.rtdroid.runtime.component;

import org.rtdroid.runtime.channel.RealtimeIntent;

/**
 * Handles messages of a channel a service subscribes to, on the service's own thread at the
 * service's priority, in sender-priority order (dissertation 4.3.1: the RealtimeHandler registered
 * in a real-time service). The message is valid only during the call.
 */
@FunctionalInterface
public interface RealtimeHandler {
    void handleMessage(RealtimeIntent msg);
}
