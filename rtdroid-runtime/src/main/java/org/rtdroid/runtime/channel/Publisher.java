package org.rtdroid.runtime.channel;

/** A component's sending end on a channel of type {@code C}: the channel and the sender it sends as. */
public abstract class Publisher<C> {
    final C channel;
    final ChannelSender sender;

    Publisher(C channel, ChannelSender sender) {
        this.channel = channel;
        this.sender = sender;
    }

    public ChannelSender sender() { return sender; }
    public C channel() { return channel; }
}
