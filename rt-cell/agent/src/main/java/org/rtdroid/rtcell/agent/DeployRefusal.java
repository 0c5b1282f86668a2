package org.rtdroid.rtcell.agent;

/** A deployment (or undeployment) refused with a protocol result code and a precise reason. */
public final class DeployRefusal extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;

    public DeployRefusal(int code, String reason) {
        super(reason);
        this.code = code;
    }

    public DeployRefusal(int code, String reason, Throwable cause) {
        super(reason, cause);
        this.code = code;
    }

    /** One of {@link ResultCode}. */
    public int code() {
        return code;
    }

    public String reason() {
        return getMessage();
    }
}
