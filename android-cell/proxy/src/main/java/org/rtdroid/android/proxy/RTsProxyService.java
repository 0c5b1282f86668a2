package org.rtdroid.android.proxy;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;

/**
 * RTDroid's RTsProxyService, the Android side of the cross-context channels. Apps address it with
 * {@code startService(new Intent(ProxyContract.ACTION_SEND)...)}; everything else lives in its
 * {@link ProxyCore}, which the cell host reads through {@link #core()} (stats, latency).
 */
public class RTsProxyService extends Service {
    private ProxyCore core;

    @Override
    public void onCreate() {
        super.onCreate();
        core = new ProxyCore(this);
        core.start();
    }

    /** The running proxy, or null before onCreate and after onDestroy. */
    public ProxyCore core() {
        return core;
    }

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        if (intent != null && ProxyContract.ACTION_SEND.equals(intent.getAction())) {
            core.send(intent);
        } else if (intent != null && intent.getAction() != null) {
            android.util.Log.w(ProxyCore.TAG, "ignored intent with action " + intent.getAction());
        }
        return START_STICKY;
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }

    @Override
    public void onDestroy() {
        ProxyCore running = core;
        core = null;
        if (running != null) {
            running.stop();
        }
        super.onDestroy();
    }
}
