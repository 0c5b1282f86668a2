package org.rtdroid.runtime.boot;

/** An application the cell cannot deploy; {@link #reason()} maps onto the management result codes. */
public final class DeploymentException extends Exception {
    /** Why (bridge/docs/protocols.md result codes 4-8). */
    public enum Reason {
        /** Memory or CPU demand does not fit what the cell has left. */
        OVER_BUDGET(4),
        /** A class named by the manifest cannot be loaded or instantiated. */
        LOAD_FAILED(5),
        /** A component threw (or hung) during start. */
        START_FAILED(6),
        /** An application (or cross-context channel) of that name is already deployed. */
        DUPLICATE(7),
        /** No application of that name. */
        NOT_FOUND(8);

        private final int code;

        Reason(int code) { this.code = code; }

        /** The numeric result code of the management protocol. */
        public int code() { return code; }
    }

    private final Reason reason;

    public DeploymentException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public DeploymentException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = reason;
    }

    public Reason reason() { return reason; }
}
