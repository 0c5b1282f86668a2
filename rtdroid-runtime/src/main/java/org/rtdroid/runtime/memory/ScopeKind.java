package org.rtdroid.runtime.memory;

/** The dissertation's scopes (section 4.4). */
public enum ScopeKind {
    /** Lives as long as its component. */
    PERSISTENT,
    /** Cleared after every callback (release) of its component or periodic task. */
    RELEASE,
    /** Owned by one party at a time; moves between sender and receiver of a bulk channel. */
    TRANSFER
}
