package org.rtdroid.runtime.manifest;

/** The real-time component kinds a manifest declares (element names in brackets). */
public enum ComponentKind {
    /** {@code <service>}: a RealtimeService with its own thread, optionally owning periodic tasks. */
    SERVICE,
    /** {@code <receiver>}: a RealtimeReceiver, one intent at a time. */
    RECEIVER
}
