package org.rtdroid.android.cell.testapp;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.util.Log;

/**
 * A manifest receiver that says in which process and under which uid it runs, and starts the
 * app's {@link WorkService} (a startService from the app's code: through the system server).
 */
public class EchoReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        Log.i("EchoReceiver", intent.getAction() + " in pid " + ProcessHandle.current().pid() + " as uid "
                + Ids.uid() + " n=" + intent.getIntExtra("n", -1) + " note=" + intent.getStringExtra("note"));
        context.startService(new Intent(WorkService.ACTION).setPackage(intent.getStringExtra("app")).putExtra("n",
                intent.getIntExtra("n", -1)));
    }
}
