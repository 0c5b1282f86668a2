package org.rtdroid.runtime.manifest;

/** {@code <memSizes total persistent release>} in bytes; for a periodic task only release is set. */
public record MemSizes(long totalBytes, long persistentBytes, long releaseBytes) {}
