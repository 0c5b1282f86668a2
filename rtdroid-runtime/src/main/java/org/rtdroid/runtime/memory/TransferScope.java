package org.rtdroid.runtime.memory;

import java.lang.foreign.MemorySegment;

/**
 * A scope with an owner, moved between the two ends of a bulk channel without copying its
 * contents (dissertation 4.4, "transfer scope with enclosed objects"). Only the owning thread may
 * allocate in it, read or write it, and only while it owns it: the sender while its closure fills
 * the scope, the receiver while its handler runs. Anyone else, the sender after the send above
 * all, gets the scope's pre-allocated {@link ScopeAccessError} ({@code NOT_OWNER}).
 */
public final class TransferScope extends Scope {
    /** Ownership states, as in the dissertation's figure 4.16 (S, T, R). */
    public enum Owner { TRANSFER_DEFAULT, SENDER, RECEIVER }

    private volatile Owner owner = Owner.TRANSFER_DEFAULT;
    private volatile Thread ownerThread;
    private final int index;

    public TransferScope(String channelName, int index, MemorySegment segment) {
        super(channelName + "#" + index, ScopeKind.TRANSFER, segment);
        this.index = index;
    }

    public int index() { return index; }
    public Owner owner() { return owner; }

    @Override
    void checkAccess() {
        if (ownerThread != Thread.currentThread() || owner == Owner.TRANSFER_DEFAULT) {
            throw accessError.record(ScopeAccessError.Reason.NOT_OWNER, 0, 0);
        }
    }

    /** Runtime only: hands the (empty) scope to the sending thread. */
    public void grantToSender(Thread t) {
        super.reset();
        ownerThread = t;
        owner = Owner.SENDER;
    }

    /** Runtime only: the sender relinquished the scope; nobody may touch it while queued. */
    public void relinquish() {
        ownerThread = null;
        owner = Owner.TRANSFER_DEFAULT;
    }

    /** Runtime only: hands the filled scope to the receiving thread. */
    public void grantToReceiver(Thread t) {
        ownerThread = t;
        owner = Owner.RECEIVER;
    }

    /** Runtime only: returns the scope to the channel's pool, emptied. */
    public void reclaim() {
        ownerThread = null;
        owner = Owner.TRANSFER_DEFAULT;
        super.reset();
    }

    /** Transfer scopes are emptied by the channel, not by their users. */
    @Override
    public void reset() {
        throw new UnsupportedOperationException("a transfer scope is reclaimed by its channel");
    }
}
