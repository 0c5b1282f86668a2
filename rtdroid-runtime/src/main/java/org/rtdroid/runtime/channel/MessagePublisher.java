package org.rtdroid.runtime.channel;

/** A component's sending end on a message channel; obtain it in {@code onCreate}. */
public final class MessagePublisher extends Publisher<MessageChannel> {
    public MessagePublisher(MessageChannel channel, ChannelSender sender) { super(channel, sender); }

    /** @see MessageChannel#send */
    public int send(MessageClosure closure) { return channel.send(sender, closure); }
}
