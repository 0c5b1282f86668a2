package org.rtdroid.runtime.component;

import org.rtdroid.runtime.channel.RealtimeIntent;

/**
 * A real-time receiver (dissertation 4.2.3): one persistent object, one intent at a time. Intents
 * of every channel it subscribes to are delivered in sender-priority order; the callbacks run on
 * the receiver's own thread at the receiver's priority, in its release scope.
 */
public abstract class RealtimeReceiver extends RealtimeComponent {
    /** Called once before the first intent. */
    public void onCreate() {}

    /** Reacts to one intent; the intent is valid only during the call. */
    public abstract void onReceive(RealtimeIntent intent);

    /** Resets per-intent state after every {@link #onReceive}. */
    public void onClean() {}

    /** Called once when the application is undeployed. */
    public void onDestroy() {}
}
