package org.rtdroid.runtime.channel;

/**
 * Populates a pre-allocated message inside the channel's send operation (dissertation Fig. 4.12),
 * so a sender never obtains or keeps a message object. Keep it short: it runs while the channel
 * is locked.
 */
@FunctionalInterface
public interface MessageClosure {
    void genMsg(RealtimeIntent msg);
}
