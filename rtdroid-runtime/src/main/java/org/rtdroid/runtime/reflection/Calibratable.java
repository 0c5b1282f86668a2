package org.rtdroid.runtime.reflection;

/** Something that wakes up ahead of a planned instant by an adjustable anticipation (an execution engine). */
public interface Calibratable {
    /** How long before an action's planned begin the engine asks to be woken (may be negative). */
    long anticipationNanos();

    void anticipationNanos(long nanos);
}
