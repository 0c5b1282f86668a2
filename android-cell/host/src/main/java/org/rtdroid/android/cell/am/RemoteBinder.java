package org.rtdroid.android.cell.am;

import org.rtdroid.android.cell.os.ProxyBinder;
import org.rtdroid.android.cell.pm.InstalledApp;

import java.io.IOException;

/**
 * The system server's handle on a binder that an app process's service returned from
 * {@code onBind}: its transactions run in that process (the object never leaves it).
 */
final class RemoteBinder extends ProxyBinder {
    private final ProcessList processes;
    private final InstalledApp app;
    private final long pid;

    RemoteBinder(ProcessList processes, InstalledApp app, long pid, long handle, String descriptor) {
        super(handle, descriptor);
        this.processes = processes;
        this.app = app;
        this.pid = pid;
    }

    @Override
    protected String call(String request) throws IOException {
        return processes.callRunning(app, pid, request);
    }

    long handle() {
        return handle;
    }
}
