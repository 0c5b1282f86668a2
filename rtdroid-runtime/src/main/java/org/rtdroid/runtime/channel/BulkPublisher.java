package org.rtdroid.runtime.channel;

/** The sending end of a bulk channel; obtain it in {@code onCreate}. */
public final class BulkPublisher {
    private final BulkChannel channel;
    private final ChannelSender sender;

    public BulkPublisher(BulkChannel channel, ChannelSender sender) {
        this.channel = channel;
        this.sender = sender;
    }

    /** @see BulkChannel#send */
    public int send(BulkClosure closure) { return channel.send(sender, closure); }

    public ChannelSender sender() { return sender; }
    public BulkChannel channel() { return channel; }
}
