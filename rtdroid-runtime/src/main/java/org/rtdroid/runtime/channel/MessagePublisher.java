package org.rtdroid.runtime.channel;

/** A component's sending end on a message channel; obtain it in {@code onCreate}. */
public final class MessagePublisher {
    private final MessageChannel channel;
    private final ChannelSender sender;

    public MessagePublisher(MessageChannel channel, ChannelSender sender) {
        this.channel = channel;
        this.sender = sender;
    }

    /** @see MessageChannel#send */
    public int send(MessageClosure closure) { return channel.send(sender, closure); }

    public ChannelSender sender() { return sender; }
    public MessageChannel channel() { return channel; }
}
