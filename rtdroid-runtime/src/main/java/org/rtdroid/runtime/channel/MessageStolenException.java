package org.rtdroid.runtime.channel;

/**
 * A higher-priority sender stole the slot of a message this sender had queued (dissertation
 * 4.3.1: the victim's sender is told asynchronously). One instance is pre-allocated per sender
 * endpoint; it is thrown from that sender's next {@code send} (before anything is queued), or
 * read with {@link ChannelSender#takeStolen()}.
 */
public final class MessageStolenException extends RuntimeException {
    private final String channelName;
    private final String senderName;
    private volatile long stolenCount;

    MessageStolenException(String channelName, String senderName) {
        super(null, null, false, false);
        this.channelName = channelName;
        this.senderName = senderName;
    }

    void setCount(long n) { stolenCount = n; }

    public String channelName() { return channelName; }
    public String senderName() { return senderName; }
    /** Messages of this sender stolen since it was last told. */
    public long stolenCount() { return stolenCount; }

    @Override
    public String getMessage() {
        return senderName + ": " + stolenCount + " queued message(s) on channel '" + channelName
                + "' reclaimed for a higher-priority sender";
    }
}
