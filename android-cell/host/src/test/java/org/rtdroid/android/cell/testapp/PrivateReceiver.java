package org.rtdroid.android.cell.testapp;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.util.Log;

/** A receiver its app does not export: another app's broadcast must not reach it. */
public class PrivateReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        Log.w("PrivateReceiver", "got " + intent.getAction() + " in pid " + ProcessHandle.current().pid());
    }
}
