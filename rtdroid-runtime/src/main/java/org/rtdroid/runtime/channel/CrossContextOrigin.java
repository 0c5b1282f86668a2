package org.rtdroid.runtime.channel;

/**
 * Where the cross-context request being relayed now comes from: the Android sender's name and
 * priority (the wire's 0..99) and the transport fields a reply needs (correlation id, the time the
 * RT-side proxy took the request off the ring). The cross-context router owns one per inbound
 * channel, sets it before each send through its relay {@link ChannelSender}, and the channel
 * stamps it on the message before the router's closure copies action and payload in. Components
 * never hold one: they read the sender's identity from the intent and answer with
 * {@code CrossContextPublisher.reply}, which carries the transport fields back.
 */
public final class CrossContextOrigin {
    private final byte[] sender = new byte[RealtimeIntent.MAX_SENDER_BYTES];
    private int senderLength;
    private int senderPriority;
    private long correlationId;
    private long receiveNanos;

    /** The next relayed request's origin (a sender longer than the intent's bound is cut). */
    public CrossContextOrigin set(byte[] name, int off, int len, int priority, long correlation, long receivedNanos) {
        int n = Math.min(len, sender.length);
        System.arraycopy(name, off, sender, 0, n);
        senderLength = n;
        senderPriority = priority;
        correlationId = correlation;
        receiveNanos = receivedNanos;
        return this;
    }

    void stampOnto(RealtimeIntent m) {
        m.stampCrossContext(sender, senderLength, senderPriority, correlationId, receiveNanos);
    }
}
