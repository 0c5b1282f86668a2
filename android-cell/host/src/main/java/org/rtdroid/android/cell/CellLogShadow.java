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

    /** Log.v, d, i, w and e without a throwable all come here. */
    @Implementation
    protected static int println_native(int bufID, int priority, String tag, String msg) {
        return log(level(priority), tag, msg, null);
    }

    /** Log.v, d, i, w and e with a throwable all come here (Log.w(tag, tr) with an empty message). */
    @Implementation
    protected static int printlns(int bufID, int priority, String tag, String msg, Throwable tr) {
        return log(level(priority), tag, msg, tr);
    }

    private static char level(int priority) {
        return priority >= Log.VERBOSE && priority <= Log.ASSERT ? "VDIWEA".charAt(priority - Log.VERBOSE) : 'I';
    }
}
