package org.rtdroid.android.cell;

import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.pm.Apps;

import android.util.Log;

import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;

/**
 * android.util.Log into the cell's logcat ({@link CellLog}), attributed to the app whose code
 * made the call (found by class loader on the stack).
 */
@Implements(Log.class)
public class CellLogShadow {
    private static int log(char level, String tag, String msg, Throwable tr) {
        CellLog.log(level, tag, Apps.callerPackage(), msg, tr);
        return msg == null ? 0 : msg.length();
    }

    @Implementation
    protected static int v(String tag, String msg) {
        return log('V', tag, msg, null);
    }

    @Implementation
    protected static int v(String tag, String msg, Throwable tr) {
        return log('V', tag, msg, tr);
    }

    @Implementation
    protected static int d(String tag, String msg) {
        return log('D', tag, msg, null);
    }

    @Implementation
    protected static int d(String tag, String msg, Throwable tr) {
        return log('D', tag, msg, tr);
    }

    @Implementation
    protected static int i(String tag, String msg) {
        return log('I', tag, msg, null);
    }

    @Implementation
    protected static int i(String tag, String msg, Throwable tr) {
        return log('I', tag, msg, tr);
    }

    @Implementation
    protected static int w(String tag, String msg) {
        return log('W', tag, msg, null);
    }

    @Implementation
    protected static int w(String tag, Throwable tr) {
        return log('W', tag, "", tr);
    }

    @Implementation
    protected static int w(String tag, String msg, Throwable tr) {
        return log('W', tag, msg, tr);
    }

    @Implementation
    protected static int e(String tag, String msg) {
        return log('E', tag, msg, null);
    }

    @Implementation
    protected static int e(String tag, String msg, Throwable tr) {
        return log('E', tag, msg, tr);
    }

    @Implementation
    protected static int wtf(String tag, String msg) {
        return log('A', tag, msg, null);
    }

    @Implementation
    protected static int wtf(String tag, String msg, Throwable tr) {
        return log('A', tag, msg, tr);
    }

    @Implementation
    protected static boolean isLoggable(String tag, int level) {
        return level >= Log.DEBUG;
    }

    @Implementation
    protected static int println_native(int bufID, int priority, String tag, String msg) {
        char level = priority >= 2 && priority <= 7 ? "VDIWEA".charAt(priority - 2) : 'I';
        return log(level, tag, msg, null);
    }
}
