package org.rtdroid.android.cell;

import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.os.Handler;
import android.os.Looper;

import java.util.ArrayList;
import java.util.List;

import org.robolectric.shadows.ShadowApplication;

/**
 * The cell's broadcast queue: the one place where the order of broadcast delivery is decided.
 * A broadcast reaches the runtime-registered receivers and the manifest receivers (instantiated
 * per broadcast, as on a device) whose filters match, in filter-priority order, on the main
 * looper; an ordered broadcast's result receiver runs after the last one.
 */
final class BroadcastQueue {
    static final String TAG = "BroadcastQueue";

    private final Application application;
    private final Handler main;
    private final CellPackageManager packages;
    private final AppCrashes crashes;

    BroadcastQueue(Application application, Handler main, CellPackageManager packages, AppCrashes crashes) {
        this.application = application;
        this.main = main;
        this.packages = packages;
        this.crashes = crashes;
    }

    void sendBroadcast(Context caller, Intent intent, String permission, BroadcastReceiver resultReceiver,
            Handler scheduler) {
        Intent copy = new Intent(intent);
        main.post(() -> deliver(copy, resultReceiver, scheduler, caller));
    }

    private static final class Target {
        final InstalledApp app; // null for system receivers
        final BroadcastReceiver runtime;
        final Context context;
        final String manifestClass;
        final int priority;

        Target(InstalledApp app, BroadcastReceiver runtime, Context context, String manifestClass, int priority) {
            this.app = app;
            this.runtime = runtime;
            this.context = context;
            this.manifestClass = manifestClass;
            this.priority = priority;
        }
    }

    private void deliver(Intent intent, BroadcastReceiver resultReceiver, Handler scheduler, Context resultContext) {
        List<Target> targets = receiversOf(intent);
        for (Target t : targets) {
            if (t.app != null && t.app.state == InstalledApp.State.CRASHED) {
                continue; // crashed while this broadcast was going round
            }
            BroadcastReceiver receiver = t.runtime;
            try {
                if (receiver == null) {
                    // A manifest receiver is instantiated for each broadcast, as on a device.
                    receiver = Class.forName(t.manifestClass, true, t.app.loader).asSubclass(BroadcastReceiver.class)
                            .getDeclaredConstructor().newInstance();
                }
                receiver.onReceive(t.context, intent);
            } catch (Throwable e) {
                String where = "BroadcastReceiver " + (receiver != null ? receiver.getClass().getName() : t.manifestClass)
                        + ".onReceive(" + intent.getAction() + ")";
                if (t.app != null) {
                    crashes.crash(t.app, where, e);
                } else {
                    CellLog.e(TAG, where + " threw", e);
                }
            }
        }
        if (resultReceiver != null) {
            Runnable result = () -> {
                try {
                    resultReceiver.onReceive(resultContext, intent);
                } catch (Throwable e) {
                    CellLog.e(TAG, "result receiver of " + intent.getAction() + " threw", e);
                }
            };
            // As on a device: on the scheduler's thread if one was given, else the main thread.
            if (scheduler == null || scheduler.getLooper() == Looper.myLooper()) {
                result.run();
            } else {
                scheduler.post(result);
            }
        }
    }

    /** Matching receivers, highest filter priority first. */
    private List<Target> receiversOf(Intent intent) {
        String onlyPackage = intent.getPackage();
        ComponentName onlyComponent = intent.getComponent();
        List<Target> targets = new ArrayList<>();
        if (onlyComponent == null) {
            for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
                String pkg = Apps.packageOf(w.broadcastReceiver);
                if (onlyPackage != null && !onlyPackage.equals(pkg)) {
                    continue;
                }
                InstalledApp app = packages.get(pkg);
                if (app != null && app.state == InstalledApp.State.CRASHED) {
                    continue;
                }
                if (w.intentFilter.match(application.getContentResolver(), intent, false, TAG) >= 0) {
                    targets.add(new Target(app, w.broadcastReceiver, w.context, null, w.intentFilter.getPriority()));
                }
            }
        }
        for (InstalledApp app : packages.installed()) {
            if (app.bundle == null || app.state == InstalledApp.State.CRASHED
                    || (onlyPackage != null && !onlyPackage.equals(app.packageName))) {
                continue;
            }
            for (AppBundle.Component r : app.bundle.receivers) {
                boolean match = onlyComponent != null
                        ? onlyComponent.getPackageName().equals(app.packageName)
                        && onlyComponent.getClassName().equals(r.className)
                        : IntentResolver.matches(r, intent);
                if (match) {
                    int prio = r.filters.isEmpty() ? 0 : r.filters.get(0).priority;
                    targets.add(new Target(app, null, application, r.className, prio));
                }
            }
        }
        targets.sort((a, b) -> Integer.compare(b.priority, a.priority));
        return targets;
    }

    /** Drops the app's runtime-registered receivers (its components are going). Main looper. */
    void unregisterReceiversOf(InstalledApp app) {
        for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
            if (Apps.packageOf(w.broadcastReceiver).equals(app.packageName)) {
                try {
                    w.context.unregisterReceiver(w.broadcastReceiver);
                } catch (RuntimeException ignored) {
                    // already unregistered by the app's own onPause
                }
            }
        }
    }
}
