package org.rtdroid.runtime.xcc;

/**
 * The runtime's side of every cross-context channel, as seen by the bridge's RT-side proxy.
 *
 * <p>The proxy (one thread, lowest real-time priority) decodes frames on the heap, then calls
 * {@link #deliver} to copy a request into a pre-allocated real-time intent, and drains what real-time
 * components published with {@link #pollOutbound}. Nothing here allocates: channel names are passed
 * as byte ranges, intents as reusable {@link CrossContextIntent} holders. {@link #deliver} is where
 * admission is checked (the proxy need not ask {@link #mayReceiveFrom} first).
 *
 * <p>Channel ids are stable while the application that declares the channel stays deployed; an id
 * from an undeployed application is rejected with {@link #NO_SUCH_CHANNEL} (ids carry a generation).
 */
public interface CrossContextEndpoint {
    /** The intent was copied and queued for its real-time consumer. */
    int DELIVERED = 0;
    /** The channel's inbound queue is full; the intent was dropped (the RT side is never blocked). */
    int CHANNEL_FULL = -1;
    /** The payload exceeds the channel's declared data size. */
    int PAYLOAD_TOO_LARGE = -2;
    /** No deployed manifest declares that channel id (never declared, or undeployed). */
    int NO_SUCH_CHANNEL = -3;
    /** The sender is not in the channel's allowed Android senders, or its priority is out of range. */
    int SENDER_NOT_ALLOWED = -4;
    /** The channel is declared RT → Android only, so it takes no inbound intents. */
    int WRONG_DIRECTION = -5;
    /** The application owning the channel is not running (stopping, failed or shut down). */
    int NOT_RUNNING = -6;

    /** @return the id of a declared cross-context channel, or -1 if no deployed manifest declares it */
    int channelId(byte[] name, int off, int len);

    /**
     * @return true if the channel accepts inbound intents from that Android sender at that priority
     *     (the manifest lists the allowed senders; priority must be 0..99): the check {@link #deliver}
     *     makes, as a query
     */
    boolean mayReceiveFrom(int channelId, byte[] sender, int off, int len, int senderPriority);

    /**
     * Copies {@code in} into a pre-allocated real-time intent of the channel and enqueues it at the
     * lowest real-time priority. The caller keeps ownership of {@code in}.
     *
     * @return {@link #DELIVERED} or one of the negative codes above
     */
    int deliver(int channelId, CrossContextIntent in);

    /**
     * Copies the next intent a real-time component published on any cross-context channel into
     * {@code out} (its channel name included) and frees the runtime's slot.
     *
     * @return false when nothing is pending
     */
    boolean pollOutbound(CrossContextIntent out);

    /**
     * Hands the next intent a real-time component published on any cross-context channel to
     * {@code reader} where it lies (no copy), then frees the runtime's slot. The intent is valid
     * only during {@link OutboundReader#read}; the reader must not keep or change it.
     *
     * @return false when nothing is pending
     */
    boolean pollOutbound(OutboundReader reader);

    /** Reads one outbound intent in place (the RT-side proxy encodes it into a frame). */
    @FunctionalInterface
    interface OutboundReader {
        void read(CrossContextIntent out);
    }

    /** How many outbound intents were refused because the outbound queue was full. */
    long outboundDropped();

    /** The symbolic name of a {@link #deliver} result code (constant strings, no allocation). */
    static String resultName(int code) {
        return switch (code) {
            case DELIVERED -> "DELIVERED";
            case CHANNEL_FULL -> "CHANNEL_FULL";
            case PAYLOAD_TOO_LARGE -> "PAYLOAD_TOO_LARGE";
            case NO_SUCH_CHANNEL -> "NO_SUCH_CHANNEL";
            case SENDER_NOT_ALLOWED -> "SENDER_NOT_ALLOWED";
            case WRONG_DIRECTION -> "WRONG_DIRECTION";
            case NOT_RUNNING -> "NOT_RUNNING";
            default -> "UNKNOWN";
        };
    }
}
