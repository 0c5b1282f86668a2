package org.rtdroid.rtcell.agent;

import org.rtdroid.runtime.text.Printable;

/**
 * A deployment, undeployment or replay the agent refuses, with the reason it answers and logs.
 * The reason is one line whatever it quotes ({@link Printable#oneLine}): names, entry names and
 * messages from the bundle, the manifest, the frame or the application's own code are escaped
 * where they are quoted, and this keeps the reason one line even where one was not.
 */
public final class DeployRefusal extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;

    public DeployRefusal(int code, String reason) {
        super(Printable.oneLine(reason));
        this.code = code;
    }

    public DeployRefusal(int code, String reason, Throwable cause) {
        super(Printable.oneLine(reason), cause);
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
