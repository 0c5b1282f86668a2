package org.rtdroid.android.cell;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.app.Application;
import android.app.Service;
import android.content.BroadcastReceiver;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.ServiceConnection;
import android.content.pm.ActivityInfo;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.content.pm.ServiceInfo;
import android.net.Uri;
import android.os.Bundle;
import android.os.Handler;
import android.os.IBinder;
import android.os.Looper;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.rtdroid.android.proxy.ProxyCore;
import org.robolectric.Robolectric;
import org.robolectric.android.controller.ActivityController;
import org.robolectric.android.controller.ServiceController;
import org.robolectric.shadows.ShadowApplication;

/**
 * The cell's ActivityManager: installs app bundles (each in its own class loader, registered with
 * the framework's PackageManager), launches and stops activities with their lifecycle callbacks
 * in order, runs started and bound services, and delivers broadcasts to runtime-registered and
 * manifest-declared receivers. Everything that touches app code runs on the main looper; an
 * exception thrown by app code marks that app crashed, is logged with its stack, and the cell
 * carries on.
 */
final class CellActivityManager {
    static final String TAG = "ActivityManager";
    private static volatile CellActivityManager instance;

    private final Application application;
    private final Handler main;
    private final Path appsDir;
    final Map<String, InstalledApp> apps = new ConcurrentHashMap<>();

    private final List<ActivityRecord> activityStack = new ArrayList<>(); // top = last
    // Read from the proxy's thread too (its start commands), changed on the main looper only.
    private final Map<ComponentName, ServiceRecord> services = new ConcurrentHashMap<>();
    private final Map<ServiceConnection, ComponentName> bindings = new IdentityHashMap<>();

    static final class ActivityRecord {
        final InstalledApp app;
        final ActivityController<? extends Activity> controller;
        boolean resumed;

        ActivityRecord(InstalledApp app, ActivityController<? extends Activity> controller) {
            this.app = app;
            this.controller = controller;
        }
    }

    static final class ServiceRecord {
        final InstalledApp app;
        final ServiceController<? extends Service> controller;
        boolean started;
        int lastStartId;
        int bindCount;
        IBinder binder;

        ServiceRecord(InstalledApp app, ServiceController<? extends Service> controller) {
            this.app = app;
            this.controller = controller;
        }
    }

    private CellActivityManager(Application application, Path appsDir) {
        this.application = application;
        this.main = new Handler(Looper.getMainLooper());
        this.appsDir = appsDir;
    }

    static CellActivityManager instance() {
        return instance;
    }

    static CellActivityManager start(Application application, Path appsDir) {
        CellActivityManager am = new CellActivityManager(application, appsDir);
        instance = am;
        am.main.post(am::pollStartedActivities);
        return am;
    }

    static void stopped() {
        instance = null;
    }

    // ------------------------------------------------------------------ packages (main thread)

    /** The proxy: a system app whose classes ship with the host. */
    void installSystemProxy() {
        InstalledApp proxy = new InstalledApp(Apps.PROXY_PACKAGE, null, getClass().getClassLoader(), null, true);
        PackageInfo pi = packageInfo(Apps.PROXY_PACKAGE, "RTDroid proxy", 1, "0.1.0", List.of(), List.of(),
                List.of("org.rtdroid.android.proxy.RTsProxyService"), List.of());
        pi.applicationInfo.flags |= ApplicationInfo.FLAG_SYSTEM | ApplicationInfo.FLAG_PERSISTENT;
        shadowOf(application.getPackageManager()).installPackage(pi);
        apps.put(Apps.PROXY_PACKAGE, proxy);
        proxy.state = InstalledApp.State.RUNNING;
        startService(application, new Intent().setClassName(Apps.PROXY_PACKAGE,
                "org.rtdroid.android.proxy.RTsProxyService"));
    }

    InstalledApp install(AppBundle b) throws CellException {
        if (apps.containsKey(b.packageName)) {
            throw new CellException(409, "package " + b.packageName + " is already installed (uninstall it first)");
        }
        if (Apps.SYSTEM.equals(b.packageName) || b.packageName.startsWith("android.")
                || b.packageName.startsWith("org.rtdroid.proxy")) {
            throw new CellException(400, "package name " + b.packageName + " is reserved for the system");
        }
        Path dir = appsDir.resolve(b.packageName);
        Path jar = dir.resolve(AppBundle.CLASSES);
        URLClassLoader loader;
        try {
            Files.createDirectories(dir);
            // The cell runs its own copy: rebuilding the bundle cannot change a running app.
            Files.copy(b.classesJar, jar, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(b.dir.resolve(AppBundle.MANIFEST), dir.resolve(AppBundle.MANIFEST),
                    StandardCopyOption.REPLACE_EXISTING);
            loader = new URLClassLoader("app:" + b.packageName, new URL[] {jar.toUri().toURL()},
                    getClass().getClassLoader());
        } catch (IOException e) {
            throw new CellException(500, "cannot install " + b.packageName + ": " + e.getMessage());
        }
        // Every declared component must load and be of the right kind before the app counts.
        try {
            for (AppBundle.Component c : b.activities) {
                checkKind(loader, c, Activity.class);
            }
            for (AppBundle.Component c : b.services) {
                checkKind(loader, c, Service.class);
            }
            for (AppBundle.Component c : b.receivers) {
                checkKind(loader, c, BroadcastReceiver.class);
            }
        } catch (CellException e) {
            closeQuietly(loader);
            throw e;
        }
        InstalledApp app = new InstalledApp(b.packageName, b, loader, dir, false);
        Apps.register(loader, b.packageName);
        shadowOf(application.getPackageManager()).installPackage(packageInfo(b.packageName, b.label, b.versionCode,
                b.versionName, b.channels, names(b.activities), names(b.services), names(b.receivers)));
        apps.put(b.packageName, app);
        CellLog.i(TAG, "installed " + b.packageName + " (" + b.label + ") from " + b.dir + ", channels "
                + b.channels);
        sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_ADDED, Uri.parse("package:" + b.packageName)),
                null, null, null);
        return app;
    }

    private static void checkKind(ClassLoader loader, AppBundle.Component c, Class<?> kind) throws CellException {
        Class<?> cls;
        try {
            cls = Class.forName(c.className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new CellException(400, "malformed bundle: " + c.kind + " " + c.className + " does not load: " + e);
        }
        if (!kind.isAssignableFrom(cls)) {
            throw new CellException(400, "malformed bundle: " + c.kind + " " + c.className + " is not a "
                    + kind.getName());
        }
    }

    private static List<String> names(List<AppBundle.Component> l) {
        List<String> out = new ArrayList<>();
        for (AppBundle.Component c : l) {
            out.add(c.className);
        }
        return out;
    }

    private static PackageInfo packageInfo(String pkg, String label, int versionCode, String versionName,
            List<String> channels, List<String> activities, List<String> services, List<String> receivers) {
        PackageInfo pi = new PackageInfo();
        pi.packageName = pkg;
        pi.versionCode = versionCode;
        pi.versionName = versionName;
        ApplicationInfo ai = new ApplicationInfo();
        ai.packageName = pkg;
        ai.nonLocalizedLabel = label;
        ai.enabled = true;
        ai.metaData = new Bundle();
        if (!channels.isEmpty()) {
            ai.metaData.putString("org.rtdroid.channels", String.join(",", channels));
        }
        pi.applicationInfo = ai;
        pi.activities = new ActivityInfo[activities.size()];
        for (int i = 0; i < activities.size(); i++) {
            ActivityInfo info = new ActivityInfo();
            info.name = activities.get(i);
            info.packageName = pkg;
            info.applicationInfo = ai;
            info.exported = true;
            pi.activities[i] = info;
        }
        pi.services = new ServiceInfo[services.size()];
        for (int i = 0; i < services.size(); i++) {
            ServiceInfo info = new ServiceInfo();
            info.name = services.get(i);
            info.packageName = pkg;
            info.applicationInfo = ai;
            info.exported = true;
            pi.services[i] = info;
        }
        pi.receivers = new ActivityInfo[receivers.size()];
        for (int i = 0; i < receivers.size(); i++) {
            ActivityInfo info = new ActivityInfo();
            info.name = receivers.get(i);
            info.packageName = pkg;
            info.applicationInfo = ai;
            info.exported = true;
            pi.receivers[i] = info;
        }
        return pi;
    }

    void uninstall(String pkg) throws CellException {
        InstalledApp app = require(pkg);
        if (app.system) {
            throw new CellException(400, pkg + " is a system app and cannot be uninstalled");
        }
        teardown(app);
        apps.remove(pkg);
        shadowOf(application.getPackageManager()).removePackage(pkg);
        Apps.unregister(app.loader);
        app.close();
        CellLog.i(TAG, "uninstalled " + pkg);
        sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_REMOVED, Uri.parse("package:" + pkg)),
                null, null, null);
    }

    InstalledApp require(String pkg) throws CellException {
        InstalledApp app = apps.get(pkg);
        if (app == null) {
            throw new CellException(404, "unknown package '" + pkg + "' (installed: " + apps.keySet() + ")");
        }
        return app;
    }

    // ------------------------------------------------------------------ activities (main thread)

    Activity launch(String pkg) throws CellException {
        InstalledApp app = require(pkg);
        if (app.system || app.bundle == null) {
            throw new CellException(400, pkg + " is a system app without a launcher activity");
        }
        Intent intent = new Intent(Intent.ACTION_MAIN).addCategory(Intent.CATEGORY_LAUNCHER)
                .setClassName(pkg, app.bundle.launcher.className);
        return startActivityInternal(app, intent);
    }

    private Activity startActivityInternal(InstalledApp app, Intent intent) throws CellException {
        String cls = intent.getComponent().getClassName();
        ActivityRecord top = top();
        if (top != null && top.app == app && top.controller.get().getClass().getName().equals(cls) && top.resumed) {
            return top.controller.get();
        }
        if (top != null && top.resumed) {
            try {
                top.controller.pause().stop();
            } catch (Throwable t) {
                crash(top.app, "pausing " + top.controller.get().getClass().getName(), t);
            }
            top.resumed = false;
        }
        ActivityController<? extends Activity> controller;
        try {
            Class<? extends Activity> c = Class.forName(cls, true, app.loader).asSubclass(Activity.class);
            controller = Robolectric.buildActivity(c, intent);
            activityStack.add(new ActivityRecord(app, controller));
            controller.setup();
        } catch (Throwable t) {
            crash(app, "launching " + cls, t);
            throw new CellException(500, "activity " + cls + " of " + app.packageName + " crashed while launching: "
                    + t);
        }
        top().resumed = true;
        app.state = InstalledApp.State.RUNNING;
        CellLog.i(TAG, "Displayed " + app.packageName + "/" + cls);
        return controller.get();
    }

    private ActivityRecord top() {
        return activityStack.isEmpty() ? null : activityStack.get(activityStack.size() - 1);
    }

    /** The resumed activity on top, or null. */
    Activity foreground() {
        ActivityRecord top = top();
        return top != null && top.resumed ? top.controller.get() : null;
    }

    String foregroundPackage() {
        ActivityRecord top = top();
        return top != null && top.resumed ? top.app.packageName : null;
    }

    /** Activity.startActivity goes through Instrumentation, which Robolectric records: poll it. */
    private void pollStartedActivities() {
        if (instance != this) {
            return;
        }
        try {
            Intent next;
            ShadowApplication sa = shadowOf(application);
            while ((next = sa.getNextStartedActivity()) != null) {
                routeStartActivity(next);
            }
        } catch (Throwable t) {
            CellLog.e(TAG, "startActivity routing failed", t);
        }
        main.postDelayed(this::pollStartedActivities, 20);
    }

    private void routeStartActivity(Intent intent) {
        ComponentName cn = intent.getComponent();
        for (InstalledApp app : apps.values()) {
            if (app.bundle == null || app.state == InstalledApp.State.CRASHED) {
                continue;
            }
            for (AppBundle.Component c : app.bundle.activities) {
                boolean match = cn != null ? cn.getClassName().equals(c.className)
                        : matches(c, intent, app.packageName);
                if (match) {
                    Intent i = new Intent(intent).setClassName(app.packageName, c.className);
                    try {
                        startActivityInternal(app, i);
                    } catch (CellException e) {
                        CellLog.w(TAG, e.getMessage());
                    }
                    return;
                }
            }
        }
        CellLog.w(TAG, "no activity found to handle " + intent);
    }

    // ------------------------------------------------------------------ services

    private ComponentName resolveService(Intent intent) {
        ComponentName cn = intent.getComponent();
        if (cn != null) {
            InstalledApp app = apps.get(cn.getPackageName());
            if (app == null) {
                return null;
            }
            if (app.system) {
                return cn.getPackageName().equals(Apps.PROXY_PACKAGE)
                        && cn.getClassName().equals("org.rtdroid.android.proxy.RTsProxyService") ? cn : null;
            }
            for (AppBundle.Component c : app.bundle.services) {
                if (c.className.equals(cn.getClassName())) {
                    return cn;
                }
            }
            return null;
        }
        String pkg = intent.getPackage();
        if (pkg == null) {
            throw new IllegalArgumentException("Service Intent must be explicit: " + intent);
        }
        InstalledApp app = apps.get(pkg);
        if (app != null && app.bundle != null) {
            for (AppBundle.Component c : app.bundle.services) {
                if (matches(c, intent, pkg)) {
                    return new ComponentName(pkg, c.className);
                }
            }
        }
        return null;
    }

    ComponentName startService(Context caller, Intent intent) {
        ComponentName cn = resolveService(intent);
        if (cn == null) {
            CellLog.w(TAG, "Unable to start service " + intent + ": not found");
            return null;
        }
        Intent copy = new Intent(intent);
        InstalledApp target = apps.get(cn.getPackageName());
        ServiceRecord running = services.get(cn);
        ProxyCore proxy = ProxyCore.instance();
        if (target != null && target.system && running != null && proxy != null) {
            // The proxy is a separate process on a device: its start commands run on its own
            // looper, not behind the apps' UI work on the main looper.
            proxy.handler().post(() -> startCommand(running, cn, copy));
        } else {
            main.post(() -> deliverStart(cn, copy));
        }
        return cn;
    }

    private void deliverStart(ComponentName cn, Intent intent) {
        ServiceRecord rec = ensureService(cn, intent);
        if (rec == null) {
            return;
        }
        startCommand(rec, cn, intent);
    }

    private void startCommand(ServiceRecord rec, ComponentName cn, Intent intent) {
        rec.started = true;
        int startId;
        synchronized (rec) {
            startId = ++rec.lastStartId;
        }
        try {
            rec.controller.get().onStartCommand(intent, 0, startId);
        } catch (Throwable t) {
            crash(rec.app, "Service " + cn.getClassName() + ".onStartCommand", t);
        }
    }

    private ServiceRecord ensureService(ComponentName cn, Intent intent) {
        ServiceRecord rec = services.get(cn);
        if (rec != null) {
            return rec;
        }
        InstalledApp app = apps.get(cn.getPackageName());
        if (app == null || app.state == InstalledApp.State.CRASHED) {
            CellLog.w(TAG, "not starting " + cn.flattenToShortString() + ": package "
                    + (app == null ? "not installed" : "crashed"));
            return null;
        }
        try {
            Class<? extends Service> cls = Class.forName(cn.getClassName(), true, app.loader).asSubclass(Service.class);
            ServiceController<? extends Service> controller = Robolectric.buildService(cls, intent);
            rec = new ServiceRecord(app, controller);
            services.put(cn, rec);
            controller.create();
            if (!app.system) {
                app.state = InstalledApp.State.RUNNING;
            }
            return rec;
        } catch (Throwable t) {
            services.remove(cn);
            crash(app, "creating service " + cn.getClassName(), t);
            return null;
        }
    }

    boolean stopService(Context caller, Intent intent) {
        ComponentName cn = resolveService(intent);
        if (cn == null) {
            return false;
        }
        main.post(() -> {
            ServiceRecord rec = services.get(cn);
            if (rec != null) {
                rec.started = false;
                if (rec.bindCount == 0) {
                    destroyService(cn, rec);
                }
            }
        });
        return true;
    }

    boolean bindService(Context caller, Intent intent, ServiceConnection conn, int flags) {
        ComponentName cn = resolveService(intent);
        if (cn == null) {
            CellLog.w(TAG, "Unable to bind service " + intent + ": not found");
            return false;
        }
        Intent copy = new Intent(intent);
        String callerPkg = Apps.packageOf(conn);
        synchronized (bindings) {
            bindings.put(conn, cn);
        }
        main.post(() -> {
            ServiceRecord rec = services.get(cn);
            if (rec == null && (flags & Context.BIND_AUTO_CREATE) != 0) {
                rec = ensureService(cn, copy);
            }
            if (rec == null) {
                return;
            }
            try {
                if (rec.binder == null) {
                    rec.binder = rec.controller.get().onBind(copy);
                }
            } catch (Throwable t) {
                crash(rec.app, "Service " + cn.getClassName() + ".onBind", t);
                return;
            }
            rec.bindCount++;
            try {
                conn.onServiceConnected(cn, rec.binder);
            } catch (Throwable t) {
                InstalledApp app = apps.get(callerPkg);
                if (app != null) {
                    crash(app, "ServiceConnection.onServiceConnected", t);
                } else {
                    CellLog.e(TAG, "onServiceConnected threw", t);
                }
            }
        });
        return true;
    }

    void unbindService(Context caller, ServiceConnection conn) {
        ComponentName cn;
        synchronized (bindings) {
            cn = bindings.remove(conn);
        }
        if (cn == null) {
            throw new IllegalArgumentException("Service not registered: " + conn);
        }
        main.post(() -> {
            ServiceRecord rec = services.get(cn);
            if (rec == null) {
                return;
            }
            rec.bindCount = Math.max(0, rec.bindCount - 1);
            if (rec.bindCount == 0) {
                try {
                    rec.controller.get().onUnbind(new Intent().setComponent(cn));
                } catch (Throwable t) {
                    crash(rec.app, "Service " + cn.getClassName() + ".onUnbind", t);
                    return;
                }
                if (!rec.started) {
                    destroyService(cn, rec);
                }
            }
        });
    }

    private void destroyService(ComponentName cn, ServiceRecord rec) {
        services.remove(cn);
        try {
            rec.controller.destroy();
        } catch (Throwable t) {
            CellLog.e(TAG, "Service " + cn.getClassName() + ".onDestroy threw", t);
        }
    }

    // ------------------------------------------------------------------ broadcasts

    void sendBroadcast(Context caller, Intent intent, String permission, BroadcastReceiver resultReceiver,
            Handler scheduler) {
        Intent copy = new Intent(intent);
        Context resultContext = caller;
        main.post(() -> deliverBroadcast(copy, resultReceiver, scheduler, resultContext));
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

    private void deliverBroadcast(Intent intent, BroadcastReceiver resultReceiver, Handler scheduler,
            Context resultContext) {
        String onlyPackage = intent.getPackage();
        ComponentName onlyComponent = intent.getComponent();
        List<Target> targets = new ArrayList<>();
        if (onlyComponent == null) {
            for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
                String pkg = Apps.packageOf(w.broadcastReceiver);
                if (onlyPackage != null && !onlyPackage.equals(pkg)) {
                    continue;
                }
                InstalledApp app = apps.get(pkg);
                if (app != null && app.state == InstalledApp.State.CRASHED) {
                    continue;
                }
                if (w.intentFilter.match(application.getContentResolver(), intent, false, TAG) >= 0) {
                    targets.add(new Target(app, w.broadcastReceiver, w.context, null, w.intentFilter.getPriority()));
                }
            }
        }
        for (InstalledApp app : apps.values()) {
            if (app.bundle == null || app.state == InstalledApp.State.CRASHED
                    || (onlyPackage != null && !onlyPackage.equals(app.packageName))) {
                continue;
            }
            for (AppBundle.Component r : app.bundle.receivers) {
                boolean match = onlyComponent != null
                        ? onlyComponent.getPackageName().equals(app.packageName)
                        && onlyComponent.getClassName().equals(r.className)
                        : matches(r, intent, app.packageName);
                if (match) {
                    int prio = r.filters.isEmpty() ? 0 : r.filters.get(0).priority;
                    targets.add(new Target(app, null, application, r.className, prio));
                }
            }
        }
        targets.sort((a, b) -> Integer.compare(b.priority, a.priority));
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
                    crash(t.app, where, e);
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

    private static boolean matches(AppBundle.Component c, Intent intent, String pkg) {
        String action = intent.getAction();
        Set<String> cats = intent.getCategories();
        Uri data = intent.getData();
        for (AppBundle.Filter f : c.filters) {
            if (action == null || !f.actions.contains(action)) {
                continue;
            }
            if (cats != null && !f.categories.containsAll(cats)) {
                continue;
            }
            if (data != null ? !f.schemes.contains(data.getScheme()) : !f.schemes.isEmpty()) {
                continue;
            }
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ stop, crash

    void stop(String pkg) throws CellException {
        InstalledApp app = require(pkg);
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
        for (int i = activityStack.size() - 1; i >= 0; i--) {
            ActivityRecord r = activityStack.get(i);
            if (r.app != app) {
                continue;
            }
            activityStack.remove(i);
            try {
                if (r.resumed) {
                    r.controller.pause();
                }
                r.controller.stop().destroy();
            } catch (Throwable t) {
                CellLog.log('E', TAG, app.packageName, "destroying " + r.controller.get().getClass().getName()
                        + " threw", t);
            }
        }
        for (Map.Entry<ComponentName, ServiceRecord> e : new ArrayList<>(services.entrySet())) {
            if (e.getValue().app == app) {
                destroyService(e.getKey(), e.getValue());
            }
        }
        for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
            if (Apps.packageOf(w.broadcastReceiver).equals(app.packageName)) {
                try {
                    w.context.unregisterReceiver(w.broadcastReceiver);
                } catch (RuntimeException ignored) {
                    // already unregistered by the app's own onPause
                }
            }
        }
        ActivityRecord top = top();
        if (top != null && !top.resumed) {
            try {
                top.controller.restart().resume();
                top.resumed = true;
            } catch (Throwable t) {
                crash(top.app, "resuming " + top.controller.get().getClass().getName(), t);
            }
        }
    }

    /** App code threw: log it like AndroidRuntime, mark the app crashed, take it down. */
    void crash(InstalledApp app, String where, Throwable t) {
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
        ActivityRecord top = top();
        if (top != null) {
            crash(top.app, where, t);
        } else {
            CellLog.e(TAG, where + " threw", t);
        }
    }

    /** Clean shutdown: every app's activities and services, then the proxy. */
    void shutdown() {
        for (InstalledApp app : new ArrayList<>(apps.values())) {
            if (!app.system) {
                try {
                    teardown(app);
                } catch (Throwable t) {
                    CellLog.e(TAG, "stopping " + app.packageName + " failed", t);
                }
            }
        }
        for (Map.Entry<ComponentName, ServiceRecord> e : new ArrayList<>(services.entrySet())) {
            destroyService(e.getKey(), e.getValue());
        }
    }

    private static void closeQuietly(URLClassLoader l) {
        try {
            l.close();
        } catch (IOException ignored) {
            // nothing loaded from it yet
        }
    }
}
