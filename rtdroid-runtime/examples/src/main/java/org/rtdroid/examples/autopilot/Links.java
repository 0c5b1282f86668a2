package org.rtdroid.examples.autopilot;

import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.MessageStolenException;

/** Sending on the app's rt-msg channels, where a refused record is counted, never fatal. */
final class Links {
    private Links() {}

    /**
     * Sends one record filled by {@code closure}.
     *
     * @return false when the channel refused it (full) or reported an earlier one of ours stolen
     *     (nothing is queued then): the caller counts it, the next release sends a fresh one
     */
    static boolean send(MessagePublisher to, MessageClosure closure) {
        try {
            return to.send(closure) == ChannelSender.SENT;
        } catch (MessageStolenException e) {
            return false;
        }
    }
}
