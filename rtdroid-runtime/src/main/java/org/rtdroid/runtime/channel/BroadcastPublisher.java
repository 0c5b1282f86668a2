package org.rtdroid.runtime.channel;

/** A component's sending end on a broadcast channel; obtain it in {@code onCreate}. */
public final class BroadcastPublisher {
    private final BroadcastChannel channel;
    private final ChannelSender sender;

    public BroadcastPublisher(BroadcastChannel channel, ChannelSender sender) {
        this.channel = channel;
        this.sender = sender;
    }

    /** @see BroadcastChannel#broadcast */
    public int broadcast(MessageClosure closure) { return channel.broadcast(sender, closure); }

    public ChannelSender sender() { return sender; }
    public BroadcastChannel channel() { return channel; }
}
