package org.rtdroid.bench.looper;

/**
 * Every message of a handler's pool is queued or held by a sender. Pre-allocated once per handler
 * (no stack trace), so reporting it allocates nothing; the pool is sized from a declared bound and
 * never grows.
 */
public final class MessagePoolExhaustedException extends RuntimeException {
    MessagePoolExhaustedException(String handlerName, int capacity) {
        super("RT handler '" + handlerName + "': message pool of " + capacity
                + " exhausted (all messages are queued or held by senders); size the pool for the"
                + " worst-case backlog or send less often", null, false, false);
    }
}
