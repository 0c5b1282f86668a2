package org.rtdroid.runtime.memory;

/**
 * A scope's bound was exceeded. One instance is pre-allocated per scope (no stack trace, nothing
 * allocated when thrown); it names the component, the scope and by how much the bound was exceeded.
 * The component's failure policy decides what happens next.
 */
public final class ScopeOverflowError extends Error {
    private final String componentName;
    private final ScopeKind scopeKind;
    private final long capacityBytes;
    private volatile long usedBytes;
    private volatile long requestedBytes;

    ScopeOverflowError(String componentName, ScopeKind scopeKind, long capacityBytes) {
        super(null, null, false, false);
        this.componentName = componentName;
        this.scopeKind = scopeKind;
        this.capacityBytes = capacityBytes;
    }

    ScopeOverflowError record(long used, long requested) {
        this.usedBytes = used;
        this.requestedBytes = requested;
        return this;
    }

    public String componentName() { return componentName; }
    public ScopeKind scopeKind() { return scopeKind; }
    public long capacityBytes() { return capacityBytes; }
    public long usedBytes() { return usedBytes; }
    public long requestedBytes() { return requestedBytes; }
    /** How many bytes past the bound the failed allocation would have reached. */
    public long overflowBytes() { return usedBytes + requestedBytes - capacityBytes; }

    @Override
    public String getMessage() {
        return componentName + ": " + scopeKind.name().toLowerCase(java.util.Locale.ROOT) + " scope of "
                + capacityBytes + " B overflowed by " + overflowBytes() + " B (used " + usedBytes
                + " B, requested " + requestedBytes + " B)";
    }
}
