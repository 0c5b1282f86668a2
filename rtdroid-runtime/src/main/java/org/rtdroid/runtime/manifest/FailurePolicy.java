package org.rtdroid.runtime.manifest;

/**
 * What the runtime does when a component's callback fails (an exception, a scope overflow or a
 * heap allocation over its release bound). Declared as {@code on-failure} on the component.
 * In every case the failure is counted and no other component is affected.
 */
public enum FailurePolicy {
    /** Stop the component (and its periodic tasks): its state becomes FAILED. The default. */
    STOP,
    /** Count the failure, reset the release scope and carry on with the next release / intent. */
    CONTINUE
}
