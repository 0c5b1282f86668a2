package org.rtdroid.runtime.xcc;

/**
 * Fills a pre-allocated outbound intent, in the manner of RTDroid's {@code MessageClosure.genMsg()}:
 * the component never holds the intent after this call returns. The channel name is set by the
 * runtime; the closure sets action, payload, correlation id (and, if it likes, sender).
 */
@FunctionalInterface
public interface CrossContextClosure {
    void genMsg(CrossContextIntent out);
}
