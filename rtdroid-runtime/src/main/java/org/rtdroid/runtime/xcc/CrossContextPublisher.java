package org.rtdroid.runtime.xcc;

import org.rtdroid.runtime.channel.RealtimeIntent;

/**
 * An RT component's handle on one cross-context channel it may publish on (declared in its
 * manifest with direction {@code out} or {@code both}). Obtain it once, in {@code onCreate}, from
 * the component's context; {@link #publish} and {@link #reply} are allocation-free and never block.
 *
 * <p>The closure fills the application's part of the outbound intent: action, payload, its own
 * sender name. The transport fields are the runtime's: it sets the channel, and the correlation
 * id, receive time and priority class after the closure ran (a value the closure left there is
 * overwritten).
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
     * proxy's {@link CrossContextEndpoint#pollOutbound}: an intent nobody asked for (no correlation
     * id, no receive time), sent in the priority class the closure chose (0..99, the wire's scale).
     *
     * @return {@link #PUBLISHED} or {@link #OUTBOUND_FULL}
     */
    int publish(CrossContextClosure closure);

    /**
     * As {@link #publish}, answering {@code request} (an intent this application received from the
     * Android cell, or its copy): the reply carries the request's correlation id and receive time
     * (so the Android side matches it and splits the round trip) and travels in the requester's
     * priority class.
     *
     * @return {@link #PUBLISHED} or {@link #OUTBOUND_FULL}
     */
    int reply(RealtimeIntent request, CrossContextClosure closure);
}
