package org.rtdroid.android.cell.adb;

/** What runs on one stream a client opened (shell, exec, sync); the stream closes when it returns. */
interface AdbService {
    void run(AdbStream stream) throws Exception;
}
