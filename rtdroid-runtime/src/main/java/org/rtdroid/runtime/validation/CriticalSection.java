package org.rtdroid.runtime.validation;

/** Task {@code task} holds the lock of {@code resource} (a channel or a declared shared object) for up to that long. */
public record CriticalSection(String resource, String task, long nanos) {}
