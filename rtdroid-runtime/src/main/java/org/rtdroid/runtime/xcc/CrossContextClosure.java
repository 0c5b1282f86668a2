package org.rtdroid.runtime.xcc;

/**
 * Fills a pre-allocated outbound intent, in the manner of RTDroid's {@code MessageClosure.genMsg()}:
 * the component never holds the intent after this call returns. The closure sets action, payload
 * and, if it likes, its sender name (and, for {@link CrossContextPublisher#publish}, the priority
 * class); the runtime sets the channel and the transport fields (correlation id, receive time).
 */
@FunctionalInterface
public interface CrossContextClosure {
    void genMsg(CrossContextIntent out);
}
