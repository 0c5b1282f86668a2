package org.rtdroid.runtime.validation;

/**
 * Task {@code task} (its {@link Task#key()}) holds the lock of {@code resource} (a channel or a
 * declared shared object, named within its application) for up to that long.
 */
public record CriticalSection(String resource, String task, long nanos) {}
