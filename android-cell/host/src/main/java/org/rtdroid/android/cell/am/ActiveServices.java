package org.rtdroid.android.cell.am;

import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.IntentWire;
import org.rtdroid.android.cell.pm.AppBundle;
import org.rtdroid.android.cell.pm.AppCrashes;
import org.rtdroid.android.cell.pm.Apps;
import org.rtdroid.android.cell.pm.CellPackageManager;
import org.rtdroid.android.cell.pm.InstalledApp;
import org.rtdroid.android.cell.pm.IntentResolver;

import android.app.Service;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.ServiceConnection;
import android.os.Handler;
import android.os.IBinder;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rtdroid.android.proxy.ProxyCore;
import org.rtdroid.android.proxy.RTsProxyService;
import org.robolectric.Robolectric;
import org.robolectric.android.controller.ServiceController;
import org.rtdroid.android.proxy.ProxyContract;

/**
 * The cell's running services: started services (onCreate once, onStartCommand per start) and
 * bound services (onBind once, onServiceConnected per binding, onUnbind when the last goes), each
 * destroyed when neither started nor bound. App services run on the main looper; the system
 * proxy's start commands run on the proxy's own looper.
 */
public final class ActiveServices {
    static final String TAG = "ActivityManager";

    private final Handler main;
    private final CellPackageManager packages;
    private final AppCrashes crashes;
    // Read from the proxy's thread too (its start commands), changed on the main looper only.
    private final Map<ComponentName, ServiceRecord> services = new ConcurrentHashMap<>();
    private final Map<ServiceConnection, ComponentName> bindings = new IdentityHashMap<>();
    /** The bindings to services that run in an app process of their own (guarded by bindings). */
    private final Map<ServiceConnection, RemoteBinder> remoteBindings = new IdentityHashMap<>();
    /** The app processes (set by the ActivityManager): a service of an app named there runs in its process. */
    volatile ProcessList processes;

    private static final class ServiceRecord {
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

    ActiveServices(Handler main, CellPackageManager packages, AppCrashes crashes) {
        this.main = main;
        this.packages = packages;
        this.crashes = crashes;
    }

    /** The running proxy's core, or null while RTsProxyService is not created. */
    public ProxyCore proxy() {
        ServiceRecord rec = services.get(new ComponentName(Apps.PROXY_PACKAGE, CellPackageManager.PROXY_SERVICE));
        Service s = rec == null ? null : rec.controller.get();
        return s instanceof RTsProxyService ? ((RTsProxyService) s).core() : null;
    }

    private ComponentName resolve(Intent intent) {
        ComponentName cn = intent.getComponent();
        if (cn != null) {
            InstalledApp app = packages.get(cn.getPackageName());
            if (app == null) {
                return null;
            }
            if (app.system) {
                return cn.getPackageName().equals(Apps.PROXY_PACKAGE)
                        && cn.getClassName().equals(CellPackageManager.PROXY_SERVICE) ? cn : null;
            }
            for (AppBundle.Component c : app.bundle.services) {
                if (c.className().equals(cn.getClassName())) {
                    return cn;
                }
            }
            return null;
        }
        String pkg = intent.getPackage();
        if (pkg == null) {
            throw new IllegalArgumentException("Service Intent must be explicit: " + intent);
        }
        InstalledApp app = packages.get(pkg);
        if (app != null && app.bundle != null) {
            for (AppBundle.Component c : app.bundle.services) {
                if (IntentResolver.matches(c, intent)) {
                    return new ComponentName(pkg, c.className());
                }
            }
        }
        return null;
    }

    /**
     * The permission a service requires of its callers: the proxy's service, its signature
     * permission (its manifest's android:permission); app services here require none.
     */
    private static String requiredPermission(ComponentName cn) {
        return Apps.PROXY_PACKAGE.equals(cn.getPackageName()) ? ProxyContract.PERMISSION_CROSS_CONTEXT : null;
    }

    /**
     * As AOSP's ActiveServices: a caller without the service's permission gets a
     * SecurityException naming the permission (and, here, the calling package).
     */
    private void enforcePermission(String what, ComponentName cn, Intent intent) {
        enforcePermission(what, cn, intent, Apps.askingPackage());
    }

    /**
     * As AOSP's ActiveServices: another app may not start or bind a service its app did not
     * export (the system may).
     */
    private void enforceExported(String what, ComponentName cn, Intent intent, String calling) {
        InstalledApp app = packages.get(cn.getPackageName());
        if (calling == null || Apps.SYSTEM.equals(calling) || calling.equals(cn.getPackageName()) || app == null
                || app.system || app.bundle == null) {
            return;
        }
        for (AppBundle.Component c : app.bundle.services) {
            if (c.className().equals(cn.getClassName()) && !c.exported()) {
                String msg = "Not allowed to " + what + " service " + intent + " from " + calling + ": "
                        + cn.flattenToShortString() + " is not exported from uid " + app.uid;
                CellLog.w(TAG, msg);
                throw new SecurityException(msg);
            }
        }
    }

    /** The service's app, when it runs in a process of its own; else null. */
    private InstalledApp inOwnProcess(ComponentName cn) {
        ProcessList p = processes;
        InstalledApp app = packages.get(cn.getPackageName());
        return p != null && app != null && !app.system && p.hosts(app.packageName) ? app : null;
    }

    private void enforcePermission(String what, ComponentName cn, Intent intent, String calling) {
        String perm = requiredPermission(cn);
        if (perm == null) {
            return;
        }
        if (!packages.holds(calling, perm)) {
            String msg = "Not allowed to " + what + " service " + intent + " from " + calling + " without permission "
                    + perm;
            CellLog.w(TAG, msg);
            throw new SecurityException(msg);
        }
    }

    public ComponentName startService(Context caller, Intent intent) {
        // Who calls is the cell's to say, as a device's Binder.getCallingUid(): from app code in
        // this JVM, the app whose code is on the stack, never the app's data.
        return start(Apps.askingPackage(), intent);
    }

    /**
     * A start from an app the kernel identified (the system server's IPC: the connection's uid),
     * {@code callingPackage} null for the system.
     */
    public ComponentName startServiceAs(String callingPackage, Intent intent) {
        return start(callingPackage, intent);
    }

    private ComponentName start(String calling, Intent intent) {
        ComponentName cn = resolve(intent);
        if (cn == null) {
            CellLog.w(TAG, "Unable to start service " + intent + ": not found");
            return null;
        }
        enforcePermission("start", cn, intent, calling);
        enforceExported("start", cn, intent, calling);
        Intent copy = new Intent(intent);
        if (Apps.PROXY_PACKAGE.equals(cn.getPackageName())) {
            // the caller's identity for the proxy: an app's value here is overwritten
            copy.putExtra(ProxyContract.EXTRA_CALLING_PACKAGE, calling != null ? calling : Apps.SYSTEM);
        }
        InstalledApp remote = inOwnProcess(cn);
        if (remote != null) {
            // started in the app's process (started first if it has none), the Intent copied there
            processes.post(remote, "service " + cn.getShortClassName(), "startService\nservice=" + cn.getClassName() + "\n"
                    + IntentWire.encode(copy)).whenComplete((reply, err) -> {
                        if (err != null || !reply.startsWith("OK")) {
                            CellLog.w(TAG, "start of " + cn.flattenToShortString() + " in its process failed: "
                                    + (err != null ? err.getMessage() : reply));
                        }
                    });
            return cn;
        }
        InstalledApp target = packages.get(cn.getPackageName());
        ServiceRecord running = services.get(cn);
        ProxyCore proxy = proxy();
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
            crashes.crash(rec.app, "Service " + cn.getClassName() + ".onStartCommand", t);
        }
    }

    private ServiceRecord ensureService(ComponentName cn, Intent intent) {
        ServiceRecord rec = services.get(cn);
        if (rec != null) {
            return rec;
        }
        InstalledApp app = packages.get(cn.getPackageName());
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
            crashes.crash(app, "creating service " + cn.getClassName(), t);
            return null;
        }
    }

    public boolean stopService(Context caller, Intent intent) {
        ComponentName cn = resolve(intent);
        if (cn == null) {
            return false;
        }
        main.post(() -> {
            ServiceRecord rec = services.get(cn);
            if (rec != null) {
                rec.started = false;
                if (rec.bindCount == 0) {
                    destroy(cn, rec);
                }
            }
        });
        return true;
    }

    public boolean bindService(Context caller, Intent intent, ServiceConnection conn, int flags) {
        return bind(Apps.askingPackage(), intent, conn, flags);
    }

    /**
     * A binding asked by an app the kernel identified (the system server's IPC), {@code
     * callingPackage} null for the system; {@code conn} is the system server's on the caller's behalf.
     */
    public boolean bindServiceAs(String callingPackage, Intent intent, ServiceConnection conn, int flags) {
        return bind(callingPackage, intent, conn, flags);
    }

    private boolean bind(String calling, Intent intent, ServiceConnection conn, int flags) {
        ComponentName cn = resolve(intent);
        if (cn == null) {
            CellLog.w(TAG, "Unable to bind service " + intent + ": not found");
            return false;
        }
        enforcePermission("bind to", cn, intent, calling);
        enforceExported("bind to", cn, intent, calling);
        Intent copy = new Intent(intent);
        String callerPkg = Apps.packageOf(conn);
        synchronized (bindings) {
            bindings.put(conn, cn);
        }
        InstalledApp remote = inOwnProcess(cn);
        if (remote != null) {
            bindRemote(remote, cn, copy, conn, callerPkg);
            return true;
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
                crashes.crash(rec.app, "Service " + cn.getClassName() + ".onBind", t);
                return;
            }
            rec.bindCount++;
            connected(conn, cn, rec.binder, callerPkg);
        });
        return true;
    }

    /**
     * A binding to a service in its app's process: the process runs onBind and keeps the binder;
     * the client gets a {@link RemoteBinder} whose transactions run there.
     */
    private void bindRemote(InstalledApp remote, ComponentName cn, Intent intent, ServiceConnection conn, String callerPkg) {
        processes.post(remote, "binding to " + cn.getShortClassName(), "bindService\nservice=" + cn.getClassName() + "\n"
                + IntentWire.encode(intent)).whenComplete((reply, err) -> {
                    if (err != null || !reply.startsWith("OK")) {
                        CellLog.w(TAG, "binding to " + cn.flattenToShortString() + " in its process failed: "
                                + (err != null ? err.getMessage() : reply));
                        return;
                    }
                    Map<String, String> f = IntentWire.fields(reply.split("\n"), 1);
                    RemoteBinder b = new RemoteBinder(processes, remote, Long.parseLong(f.get("pid")),
                            Long.parseLong(f.get("handle")), f.get("descriptor"));
                    synchronized (bindings) {
                        if (bindings.get(conn) != cn) { // unbound while the process started
                            b.died();
                            processes.post(remote, "unbinding", "unbindService\nservice=" + cn.getClassName());
                            return;
                        }
                        remoteBindings.put(conn, b);
                    }
                    main.post(() -> connected(conn, cn, b, callerPkg));
                });
    }

    private void connected(ServiceConnection conn, ComponentName cn, IBinder binder, String callerPkg) {
        try {
            conn.onServiceConnected(cn, binder);
        } catch (Throwable t) {
            InstalledApp app = packages.get(callerPkg);
            if (app != null) {
                crashes.crash(app, "ServiceConnection.onServiceConnected", t);
            } else {
                CellLog.e(TAG, "onServiceConnected threw", t);
            }
        }
    }

    public void unbindService(Context caller, ServiceConnection conn) {
        ComponentName cn;
        RemoteBinder remoteBinder;
        synchronized (bindings) {
            cn = bindings.remove(conn);
            remoteBinder = remoteBindings.remove(conn);
        }
        if (cn == null) {
            throw new IllegalArgumentException("Service not registered: " + conn);
        }
        if (remoteBinder != null) {
            remoteBinder.died(); // the client's handle goes with its binding
            InstalledApp remote = inOwnProcess(cn);
            if (remote != null) {
                processes.post(remote, "unbinding", "unbindService\nservice=" + cn.getClassName());
            }
            return;
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
                    crashes.crash(rec.app, "Service " + cn.getClassName() + ".onUnbind", t);
                    return;
                }
                if (!rec.started) {
                    destroy(cn, rec);
                }
            }
        });
    }

    /** Destroys the app's services (all of them when app is null: the clean shutdown). Main looper. */
    void destroyServicesOf(InstalledApp app) {
        for (Map.Entry<ComponentName, ServiceRecord> e : new ArrayList<>(services.entrySet())) {
            if (app == null || e.getValue().app == app) {
                destroy(e.getKey(), e.getValue());
            }
        }
    }

    private void destroy(ComponentName cn, ServiceRecord rec) {
        services.remove(cn);
        try {
            rec.controller.destroy();
        } catch (Throwable t) {
            CellLog.e(TAG, "Service " + cn.getClassName() + ".onDestroy threw", t);
        }
    }
}
