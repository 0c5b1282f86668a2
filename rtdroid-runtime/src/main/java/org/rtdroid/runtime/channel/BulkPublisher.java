package org.rtdroid.runtime.channel;

/** The sending end of a bulk channel; obtain it in {@code onCreate}. */
public final class BulkPublisher extends Publisher<BulkChannel> {
    public BulkPublisher(BulkChannel channel, ChannelSender sender) { super(channel, sender); }

    /** @see BulkChannel#send */
    public int send(BulkClosure closure) { return channel.send(sender, closure); }
}
