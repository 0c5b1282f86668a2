package org.rtdroid.examples.autopilot;

import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;

/**
 * One module's receiving end of the SPI link: a frame of the link's action and length goes into
 * the module's register ({@link #store}); any other is counted and dropped. The sending end is
 * the other module's {@link SpiSender}.
 */
abstract class SpiReceiver extends RealtimeReceiver {
    private final String action;
    private final int frameBytes;
    private volatile long malformed;

    SpiReceiver(String action, int frameBytes) {
        this.action = action;
        this.frameBytes = frameBytes;
    }

    @Override
    public final void onReceive(RealtimeIntent intent) {
        if (!intent.hasAction(action) || intent.payloadLength() != frameBytes) {
            malformed++;
            return;
        }
        store(intent);
    }

    /** Puts a whole frame into the module's register. */
    abstract void store(RealtimeIntent frame);

    public long malformed() { return malformed; }
}
