package org.rtdroid.android.cell;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.pm.Apps;
import org.rtdroid.android.cell.pm.InstalledApp;

import android.content.BroadcastReceiver;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.ServiceConnection;
import android.os.Bundle;
import android.os.Handler;

import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;
import org.robolectric.annotation.RealObject;
import org.robolectric.shadows.ShadowContextImpl;
import org.robolectric.util.reflector.Direct;
import org.robolectric.util.reflector.ForType;
import org.robolectric.util.reflector.Reflector;

/**
 * Routes a Context's service and broadcast calls to the cell's ActivityManager
 * ({@link CellActivityManager}) instead of Robolectric's recorder, so that started services run,
 * bound services connect and broadcasts reach manifest-declared and runtime-registered receivers
 * of the installed apps. Before the cell is up (framework set-up) everything goes to Robolectric.
 */
@Implements(className = "android.app.ContextImpl", isInAndroidSdk = false)
public class CellContextImplShadow extends ShadowContextImpl {
    @RealObject
    private Context self;

    private Context caller() {
        try {
            Context outer = Reflector.reflector(ContextImplReflector.class, self).getOuterContext();
            return outer != null ? outer : self;
        } catch (RuntimeException e) {
            return self;
        }
    }

    @ForType(className = "android.app.ContextImpl")
    interface ContextImplReflector {
        @Direct
        String getPackageName();

        // A generated accessor, bound once: ReflectionHelpers looked the method up on every
        // service and broadcast call.
        Context getOuterContext();

        @Direct
        java.io.File getDataDir();

        @Direct
        java.io.File getFilesDir();

        @Direct
        java.io.File getCacheDir();
    }

    /**
     * Robolectric attaches every activity to the one application's context, so every context
     * would answer with the application's package. Here the question is answered by who asks:
     * when the nearest caller outside the framework is an installed app's code (an Activity
     * calling getPackageName(), say), the answer is that app's package, as on a device; the
     * framework asking for itself still gets the real value.
     */
    @Implementation
    protected String getPackageName() {
        String pkg = Apps.askingPackage();
        if (pkg != null) {
            return pkg;
        }
        return Reflector.reflector(ContextImplReflector.class, self).getPackageName();
    }

    /**
     * An installed app's own data directory, files and cache ({@code /data/data/<package>} on a
     * device, owned by the app's uid), when the app's code asks; the framework asking for itself
     * gets Robolectric's.
     */
    @Implementation
    protected java.io.File getDataDir() {
        java.nio.file.Path d = appDataDir();
        return d != null ? d.toFile() : Reflector.reflector(ContextImplReflector.class, self).getDataDir();
    }

    @Implementation
    protected java.io.File getFilesDir() {
        java.nio.file.Path d = appDataDir();
        return d != null ? d.resolve("files").toFile() : Reflector.reflector(ContextImplReflector.class, self).getFilesDir();
    }

    @Implementation
    protected java.io.File getCacheDir() {
        java.nio.file.Path d = appDataDir();
        return d != null ? d.resolve("cache").toFile() : Reflector.reflector(ContextImplReflector.class, self).getCacheDir();
    }

    private static java.nio.file.Path appDataDir() {
        CellActivityManager am = am();
        String pkg = am == null ? null : Apps.askingPackage();
        InstalledApp app = pkg == null ? null : am.packages.get(pkg);
        return app == null ? null : app.dataDir;
    }

    /**
     * The system server that Context calls reach. Robolectric creates shadows itself, so this is
     * the one static hand-over (a device's ContextImpl finds ActivityManagerService through the
     * ServiceManager the same way): set by {@link CellHost} when the cell is up, cleared when it stops.
     */
    private static volatile CellActivityManager systemServer;

    public static void attach(CellActivityManager am) {
        systemServer = am;
    }

    public static void detach() {
        systemServer = null;
    }

    private static CellActivityManager am() {
        return systemServer;
    }

    @Implementation
    @Override
    protected ComponentName startService(Intent service) {
        CellActivityManager am = am();
        return am == null ? super.startService(service) : am.services.startService(caller(), service);
    }

    @Implementation
    @Override
    protected boolean stopService(Intent name) {
        CellActivityManager am = am();
        return am == null ? super.stopService(name) : am.services.stopService(caller(), name);
    }

    @Implementation
    @Override
    protected boolean bindService(Intent service, ServiceConnection conn, int flags) {
        CellActivityManager am = am();
        return am == null ? super.bindService(service, conn, flags) : am.services.bindService(caller(), service, conn, flags);
    }

    @Implementation
    @Override
    protected void unbindService(ServiceConnection conn) {
        CellActivityManager am = am();
        if (am == null) {
            super.unbindService(conn);
        } else {
            am.services.unbindService(caller(), conn);
        }
    }

    @Implementation
    @Override
    protected void sendBroadcast(Intent intent) {
        CellActivityManager am = am();
        if (am == null) {
            super.sendBroadcast(intent);
        } else {
            am.broadcasts.sendBroadcast(caller(), intent, null, null, null);
        }
    }

    @Implementation
    @Override
    protected void sendBroadcast(Intent intent, String receiverPermission) {
        CellActivityManager am = am();
        if (am == null) {
            super.sendBroadcast(intent, receiverPermission);
        } else {
            am.broadcasts.sendBroadcast(caller(), intent, receiverPermission, null, null);
        }
    }

    @Implementation
    @Override
    protected void sendOrderedBroadcast(Intent intent, String receiverPermission) {
        CellActivityManager am = am();
        if (am == null) {
            super.sendOrderedBroadcast(intent, receiverPermission);
        } else {
            am.broadcasts.sendBroadcast(caller(), intent, receiverPermission, null, null);
        }
    }

    @Implementation
    @Override
    protected void sendOrderedBroadcast(Intent intent, String receiverPermission, BroadcastReceiver resultReceiver,
            Handler scheduler, int initialCode, String initialData, Bundle initialExtras) {
        CellActivityManager am = am();
        if (am == null) {
            super.sendOrderedBroadcast(intent, receiverPermission, resultReceiver, scheduler, initialCode,
                    initialData, initialExtras);
        } else {
            am.broadcasts.sendBroadcast(caller(), intent, receiverPermission, resultReceiver, scheduler);
        }
    }
}
