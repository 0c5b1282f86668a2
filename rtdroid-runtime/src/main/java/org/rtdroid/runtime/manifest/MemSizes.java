package org.rtdroid.runtime.manifest;

/**
 * {@code <memSizes total persistent release [immortal]>} in bytes; for a periodic task only release
 * is set. Immortal is the component's start-up memory (0 when not declared); total counts it.
 */
public record MemSizes(long totalBytes, long persistentBytes, long releaseBytes, long immortalBytes) {
    public MemSizes(long totalBytes, long persistentBytes, long releaseBytes) {
        this(totalBytes, persistentBytes, releaseBytes, 0);
    }
}
