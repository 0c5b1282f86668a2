package org.rtdroid.android.cell.am;

import java.io.IOException;

/**
 * The system server's end of an app process's connection (AOSP's {@code IApplicationThread}): the
 * app process attached over the system server's IPC, and the system server calls it on the same
 * connection. One call at a time; a frame is the IPC's (method line, {@code key=value} lines).
 */
public interface ApplicationThread {
    /** Sends a request, waits for the reply; IOException when the process went away. */
    String call(String request) throws IOException;

    void close();
}
