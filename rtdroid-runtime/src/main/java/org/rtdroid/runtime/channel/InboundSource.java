package org.rtdroid.runtime.channel;

/**
 * Something a consuming component takes intents from: a message channel it consumes, or its own
 * queue on a broadcast channel. The component's thread picks the source whose head has the highest
 * sender priority (oldest first among equals), so delivery is in sender-priority order across all
 * the channels it subscribes to.
 */
public interface InboundSource {
    /** Sender priority of the next intent, or -1 if none. */
    int headPriority();

    /** Sequence (arrival order) of the next intent; Long.MAX_VALUE if none. */
    long headSeq();

    /** Hands the next intent to {@code consumer} (valid during the call only), then frees it. @return false if empty */
    boolean deliverOne(IntentConsumer consumer);

    /** The thread to wake when something arrives (the consuming component's thread). */
    void setConsumerThread(Thread t);

    String channelName();
}
