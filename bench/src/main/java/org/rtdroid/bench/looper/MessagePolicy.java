package org.rtdroid.bench.looper;

/** How a message sent through an {@link RtHandler} gets its priority (dissertation section 3.5.2). */
public enum MessagePolicy {
    /** A message inherits its sender thread's priority; a priority set on the message is ignored. */
    INHERITANCE,
    /**
     * A sender may give a message a priority with {@link RtMessage#setPriority}, to order the
     * messages it sends among themselves; it is capped at the sender's own priority so that no
     * sender can overtake a higher-priority one. Without one, the message inherits as above.
     */
    INHERITANCE_SPECIFIED
}
