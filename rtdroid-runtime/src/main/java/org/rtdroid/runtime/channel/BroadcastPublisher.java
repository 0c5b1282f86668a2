package org.rtdroid.runtime.channel;

/** A component's sending end on a broadcast channel; obtain it in {@code onCreate}. */
public final class BroadcastPublisher extends Publisher<BroadcastChannel> {
    public BroadcastPublisher(BroadcastChannel channel, ChannelSender sender) { super(channel, sender); }

    /** @see BroadcastChannel#broadcast */
    public int broadcast(MessageClosure closure) { return channel.broadcast(sender, closure); }
}
