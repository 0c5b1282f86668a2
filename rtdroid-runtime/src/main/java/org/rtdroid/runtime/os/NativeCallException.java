package org.rtdroid.runtime.os;

/** A libc call failed; carries the call's name and errno and says both in the message. */
public final class NativeCallException extends RuntimeException {
    private final String call;
    private final int errno;

    public NativeCallException(String call, int errno) {
        super(call + " failed: " + Errno.describe(errno));
        this.call = call;
        this.errno = errno;
    }

    public String call() {
        return call;
    }

    public int errno() {
        return errno;
    }
}
