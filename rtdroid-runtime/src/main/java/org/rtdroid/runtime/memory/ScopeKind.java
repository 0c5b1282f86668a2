package org.rtdroid.runtime.memory;

/** The dissertation's scopes (section 4.4), and RTSJ's immortal memory. */
public enum ScopeKind {
    /** Lives as long as its component. */
    PERSISTENT,
    /** Cleared after every callback (release) of its component or periodic task. */
    RELEASE,
    /** Owned by one party at a time; moves between sender and receiver of a bulk channel. */
    TRANSFER,
    /** Filled while its component starts up, never cleared: allocation closes once it runs. */
    IMMORTAL
}
