package org.rtdroid.runtime.memory;

/**
 * An access outside what a scope currently holds: an offset that was never allocated or was
 * cleared with the release, or a transfer scope touched by a thread that does not own it (a sender
 * touching a bulk buffer it already sent), or an allocation in an immortal scope after its
 * component started up. Pre-allocated per scope, no stack trace.
 */
public final class ScopeAccessError extends Error {
    /** Why the access was refused. */
    public enum Reason { NOT_ALLOCATED, NOT_OWNER, SEALED }

    private final String scopeName;
    private volatile Reason reason = Reason.NOT_ALLOCATED;
    private volatile long offset;
    private volatile long limit;

    ScopeAccessError(String scopeName) {
        super(null, null, false, false);
        this.scopeName = scopeName;
    }

    ScopeAccessError record(Reason r, long offset, long limit) {
        this.reason = r;
        this.offset = offset;
        this.limit = limit;
        return this;
    }

    public Reason reason() { return reason; }
    public String scopeName() { return scopeName; }

    @Override
    public String getMessage() {
        return switch (reason) {
            case NOT_OWNER -> scopeName + ": the calling thread does not own this transfer scope (it was sent, or is not yours)";
            case SEALED -> scopeName + ": allocation after start-up (an immortal scope is filled in onCreate/onStartCommand)";
            case NOT_ALLOCATED -> scopeName + ": access at offset " + offset + " outside the " + limit
                    + " B allocated in this scope";
        };
    }
}
