package org.rtdroid.android.cell;

import android.app.Activity;
import android.app.Application;
import android.content.Intent;
import android.net.Uri;
import android.os.Handler;
import android.os.Looper;

import java.nio.file.Path;
import java.util.ArrayList;

/**
 * The cell's ActivityManager, wiring AOSP's seams: {@link CellPackageManager} (install),
 * {@link ActivityStack}, {@link ActiveServices} and {@link BroadcastQueue}. It owns what spans
 * them: an app's stop, uninstall and crash take down its activities, services and receivers.
 * Everything that touches app code runs on the main looper; an exception thrown by app code
 * marks that app crashed, is logged with its stack, and the cell carries on.
 */
final class CellActivityManager implements AppCrashes {
    static final String TAG = "ActivityManager";

    private final Application application;
    private final Handler main;
    final CellPackageManager packages;
    final ActivityStack activities;
    final ActiveServices services;
    final BroadcastQueue broadcasts;

    CellActivityManager(Application application, Path appsDir) {
        this.application = application;
        this.main = new Handler(Looper.getMainLooper());
        this.packages = new CellPackageManager(application, appsDir);
        this.activities = new ActivityStack(application, main, packages, this);
        this.services = new ActiveServices(main, packages, this);
        this.broadcasts = new BroadcastQueue(application, main, packages, this);
    }

    void start() {
        activities.start();
    }

    /** The proxy: a system app whose service starts with the cell. */
    void installSystemProxy() {
        packages.installSystemProxy();
        services.startService(application, new Intent().setClassName(Apps.PROXY_PACKAGE,
                CellPackageManager.PROXY_SERVICE));
    }

    InstalledApp install(AppBundle b) throws CellException {
        InstalledApp app = packages.install(b);
        broadcasts.sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_ADDED,
                Uri.parse("package:" + b.packageName)), null, null, null);
        return app;
    }

    void uninstall(String pkg) throws CellException {
        InstalledApp app = packages.require(pkg);
        if (app.system) {
            throw new CellException(400, pkg + " is a system app and cannot be uninstalled");
        }
        teardown(app);
        packages.remove(app);
        broadcasts.sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_REMOVED,
                Uri.parse("package:" + pkg)), null, null, null);
    }

    Activity launch(String pkg) throws CellException {
        return activities.launch(packages.require(pkg));
    }

    void stop(String pkg) throws CellException {
        InstalledApp app = packages.require(pkg);
        if (app.system) {
            throw new CellException(400, pkg + " is a system app and keeps running");
        }
        teardown(app);
        if (app.state != InstalledApp.State.CRASHED) {
            app.state = InstalledApp.State.STOPPED;
        }
        CellLog.i(TAG, "stopped " + pkg);
    }

    /** Destroys an app's activities and services and drops its runtime receivers. */
    private void teardown(InstalledApp app) {
        activities.finishActivitiesOf(app);
        services.destroyServicesOf(app);
        broadcasts.unregisterReceiversOf(app);
        activities.resumeTop();
    }

    /** App code threw: log it like AndroidRuntime, mark the app crashed, take it down. */
    @Override
    public void crash(InstalledApp app, String where, Throwable t) {
        app.crashes++;
        app.crash = where + ": " + t;
        app.state = InstalledApp.State.CRASHED;
        CellLog.log('E', "AndroidRuntime", app.packageName, "FATAL EXCEPTION in " + app.packageName + " (" + where
                + "); the app is marked crashed, the cell keeps running", t);
        if (!app.system) {
            main.post(() -> {
                try {
                    teardown(app);
                } catch (Throwable e) {
                    CellLog.e(TAG, "teardown of crashed " + app.packageName + " failed", e);
                }
            });
        }
    }

    /** Crash attribution for app code the control interface ran (clicks, UI changes). */
    void crashForeground(String where, Throwable t) {
        InstalledApp top = activities.topApp();
        if (top != null) {
            crash(top, where, t);
        } else {
            CellLog.e(TAG, where + " threw", t);
        }
    }

    /** Clean shutdown: every app's activities and services, then the proxy. */
    void shutdown() {
        for (InstalledApp app : new ArrayList<>(packages.installed())) {
            if (!app.system) {
                try {
                    teardown(app);
                } catch (Throwable t) {
                    CellLog.e(TAG, "stopping " + app.packageName + " failed", t);
                }
            }
        }
        services.destroyServicesOf(null);
        activities.stop();
    }
}
