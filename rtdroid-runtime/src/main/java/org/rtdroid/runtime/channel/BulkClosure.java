package org.rtdroid.runtime.channel;

import org.rtdroid.runtime.memory.TransferScope;

/**
 * Fills a transfer scope inside {@link BulkChannel#send} (the dissertation's {@code EnclosedMessage}).
 * The scope belongs to the calling thread only during this call; keeping it and touching it later
 * raises {@link org.rtdroid.runtime.memory.ScopeAccessError}.
 */
@FunctionalInterface
public interface BulkClosure {
    void genMsg(TransferScope scope);
}
