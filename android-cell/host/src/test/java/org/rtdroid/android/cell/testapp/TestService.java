package org.rtdroid.android.cell.testapp;

import android.app.Service;
import android.content.Intent;
import android.os.Binder;
import android.os.IBinder;

/** A bound service for the host tests. */
public class TestService extends Service {
    public final class LocalBinder extends Binder {
        public String greeting() {
            return "hello from " + getPackageName();
        }
    }

    @Override
    public IBinder onBind(Intent intent) {
        return new LocalBinder();
    }
}
