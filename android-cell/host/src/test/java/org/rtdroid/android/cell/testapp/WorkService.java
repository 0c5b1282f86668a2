package org.rtdroid.android.cell.testapp;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;
import android.util.Log;

/** A started service that says where it runs. */
public class WorkService extends Service {
    public static final String ACTION = "org.rtdroid.test.WORK";

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        Log.i("WorkService", "start " + startId + " in pid " + ProcessHandle.current().pid() + " as uid " + Ids.uid()
                + " n=" + intent.getIntExtra("n", -1));
        return START_NOT_STICKY;
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }
}
