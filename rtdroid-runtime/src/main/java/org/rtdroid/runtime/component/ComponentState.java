package org.rtdroid.runtime.component;

/** Lifecycle states of a real-time component or periodic task. */
public enum ComponentState {
    CREATED, STARTING, RUNNING, STOPPING, DESTROYED, FAILED
}
