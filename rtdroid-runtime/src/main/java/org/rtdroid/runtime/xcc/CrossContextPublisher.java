package org.rtdroid.runtime.xcc;

/**
 * An RT component's handle on one cross-context channel it may publish on (declared in its
 * manifest with direction {@code out} or {@code both}). Obtain it once, in {@code onCreate}, from
 * the component's context; {@link #publish} is allocation-free and never blocks.
 */
public interface CrossContextPublisher {
    /** Publish succeeded. */
    int PUBLISHED = 0;
    /** The outbound queue is full; the intent was dropped and counted. */
    int OUTBOUND_FULL = -1;

    /** The channel's name as declared in the manifest. */
    String channelName();

    /**
     * Takes a pre-allocated outbound slot, lets {@code closure} fill it, and queues it for the
     * proxy's {@link CrossContextEndpoint#pollOutbound}.
     *
     * @return {@link #PUBLISHED} or {@link #OUTBOUND_FULL}
     */
    int publish(CrossContextClosure closure);
}
