package org.rtdroid.examples.autopilot;

import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessageStolenException;
import org.rtdroid.runtime.component.PeriodicTask;

/**
 * One module's sending end of the SPI link: each release broadcasts one frame, which the subclass
 * fills in {@link #genMsg}; the other module's receiver ({@link SpiFromAutopilot},
 * {@link SpiFromFlyByWire}) puts it in that module's register. A release allocates nothing.
 */
abstract class SpiSender extends PeriodicTask implements MessageClosure {
    private final BroadcastPublisher link;
    private volatile long reclaimed;

    SpiSender(BroadcastPublisher link) {
        this.link = link;
    }

    @Override
    public final void onRelease() {
        try {
            link.broadcast(this);
        } catch (MessageStolenException e) {
            reclaimed++; // an earlier frame was reclaimed unread: this newer one is on its way
        }
    }

    /** Frames of this sender's that the link reclaimed unread. */
    final long reclaimed() { return reclaimed; }
}
