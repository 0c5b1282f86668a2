package org.rtdroid.android.cell.testapp;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;

/** A manifest-declared receiver that throws: the app must be marked crashed, the cell go on. */
public class BoomReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        throw new IllegalStateException("deliberate crash in BoomReceiver for " + intent.getAction());
    }
}
