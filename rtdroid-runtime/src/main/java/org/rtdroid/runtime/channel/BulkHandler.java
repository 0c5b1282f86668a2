package org.rtdroid.runtime.channel;

import org.rtdroid.runtime.memory.TransferScope;

/** Reads a received transfer scope in place (zero copy); the scope is reclaimed when this returns. */
@FunctionalInterface
public interface BulkHandler {
    void onBulk(TransferScope scope);
}
