package org.rtdroid.runtime.memory;

/**
 * A release allocated more Java heap than its declared release bound. Pre-allocated per component
 * or task; raised after the release returns, then handled by the component's failure policy.
 */
public final class HeapBoundExceededError extends Error {
    private final String componentName;
    private final long boundBytes;
    private volatile long allocatedBytes;

    public HeapBoundExceededError(String componentName, long boundBytes) {
        super(null, null, false, false);
        this.componentName = componentName;
        this.boundBytes = boundBytes;
    }

    public HeapBoundExceededError record(long allocated) {
        this.allocatedBytes = allocated;
        return this;
    }

    public String componentName() { return componentName; }
    public long boundBytes() { return boundBytes; }
    public long allocatedBytes() { return allocatedBytes; }

    @Override
    public String getMessage() {
        return componentName + ": a release allocated " + allocatedBytes + " B of Java heap, over its release bound of "
                + boundBytes + " B by " + (allocatedBytes - boundBytes) + " B";
    }
}
