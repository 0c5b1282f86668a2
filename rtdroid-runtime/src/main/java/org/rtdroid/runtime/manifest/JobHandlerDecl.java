package org.rtdroid.runtime.manifest;

/**
 * {@code <deadline-miss-handler priority cost/>} or {@code <cost-overrun-handler priority cost/>}
 * inside a {@code <periodic-task>} (its releases) or a {@code <receiver>}/{@code <service>} (its
 * callbacks): RTSJ's miss and overrun handlers. The runtime releases the handler at its own
 * {@code priority} when a job of its owner misses its deadline or uses more CPU time than its
 * cost; static validation models it as a sporadic task of cost {@code costNanos} at most once per
 * job of its owner.
 */
public record JobHandlerDecl(Kind kind, int priority, long costNanos, int line) {
    public enum Kind {
        DEADLINE_MISS("deadline-miss-handler"), COST_OVERRUN("cost-overrun-handler");

        private final String element;

        Kind(String element) { this.element = element; }

        /** The manifest element that declares it. */
        public String element() { return element; }
    }

    static JobHandlerDecl find(java.util.List<JobHandlerDecl> handlers, Kind kind) {
        for (JobHandlerDecl h : handlers) {
            if (h.kind() == kind) {
                return h;
            }
        }
        return null;
    }
}
