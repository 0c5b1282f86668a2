package org.rtdroid.runtime.memory;

import java.lang.foreign.MemorySegment;

/**
 * RTSJ's immortal memory for one component: what it builds while it starts up (tables, buffers,
 * pre-allocated state) and keeps for its whole life. It is filled in {@code onCreate} and
 * {@code onStartCommand}; once the component runs, the runtime {@link #seal() seals} it, and an
 * allocation is refused with the scope's pre-allocated {@link ScopeAccessError} ({@code SEALED}),
 * so no release can eat into it. It is never cleared; reads and writes of what was allocated stay
 * valid until the component is undeployed. Like every scope it reads as zero when allocated.
 */
public final class ImmortalScope extends Scope {
    private volatile boolean sealed;

    public ImmortalScope(String componentName, MemorySegment segment) {
        super(componentName, ScopeKind.IMMORTAL, segment);
    }

    /** Runtime only: start-up is over, allocation closes. */
    public void seal() { sealed = true; }

    public boolean sealed() { return sealed; }

    @Override
    void checkAllocation() {
        if (sealed) {
            throw accessError.record(ScopeAccessError.Reason.SEALED, usedBytes(), capacityBytes());
        }
    }

    /** Immortal memory is never cleared. */
    @Override
    public void reset() {
        throw new UnsupportedOperationException("an immortal scope is never cleared");
    }
}
