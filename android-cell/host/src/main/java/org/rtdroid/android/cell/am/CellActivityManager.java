package org.rtdroid.android.cell.am;

import org.rtdroid.android.cell.broadcast.BroadcastQueue;
import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.MainThread;
import org.rtdroid.android.cell.pm.AppCrashes;
import org.rtdroid.android.cell.pm.Apps;
import org.rtdroid.android.cell.pm.CellPackageManager;
import org.rtdroid.android.cell.pm.InstalledApp;
import org.rtdroid.android.cell.pm.SignedApk;

import android.app.Activity;
import android.app.Application;
import android.content.Intent;
import android.net.Uri;
import android.os.Handler;
import android.os.Looper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;

import org.rtdroid.android.proxy.ProxyContract;

/**
 * The cell's ActivityManager, wiring AOSP's seams: {@link CellPackageManager} (install),
 * {@link ActivityStack}, {@link ActiveServices} and {@link BroadcastQueue}. It owns what spans
 * them: an app's stop, uninstall and crash take down its activities, services and receivers.
 * Everything that touches app code runs on the main looper; an exception thrown by app code
 * marks that app crashed, is logged with its stack, and the cell carries on.
 */
public final class CellActivityManager implements AppCrashes {
    static final String TAG = "ActivityManager";

    private final Application application;
    private final Handler main;
    public final CellPackageManager packages;
    public final ActivityStack activities;
    public final ActiveServices services;
    public final BroadcastQueue broadcasts;
    /** The apps that run in processes of their own (none until {@link #useAppProcesses}). */
    public volatile ProcessList processes = new ProcessList(java.util.Set.of(), null, null);

    /** {@code platformCertSha256}: the proxy's certificate (null: no app holds its permission). */
    public CellActivityManager(Application application, Path appsDir, String platformCertSha256) {
        this(application, appsDir, platformCertSha256, BroadcastQueue.Discipline.PRIORITY);
    }

    /** With the broadcast queue's discipline chosen (the broadcast benchmark's FIFO baseline). */
    public CellActivityManager(Application application, Path appsDir, String platformCertSha256,
            BroadcastQueue.Discipline discipline) {
        this.application = application;
        this.main = new Handler(Looper.getMainLooper());
        this.packages = new CellPackageManager(application, appsDir, platformCertSha256);
        this.activities = new ActivityStack(application, main, packages, this);
        this.services = new ActiveServices(main, packages, this);
        this.broadcasts = new BroadcastQueue(application, main, packages, this, discipline);
    }

    public void start() {
        broadcasts.start();
        activities.start();
    }

    /** The proxy: a system app whose service starts with the cell. */
    public void installSystemProxy() {
        packages.installSystemProxy();
        services.startService(application, new Intent().setClassName(Apps.PROXY_PACKAGE,
                CellPackageManager.PROXY_SERVICE));
    }

    public InstalledApp install(SignedApk apk) throws CellException {
        InstalledApp app = packages.install(apk);
        broadcasts.sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_ADDED,
                Uri.parse("package:" + app.packageName)), null, null, null);
        return app;
    }

    /**
     * A broadcast from the shell ({@code adb shell am broadcast}): the shell user is not an app and
     * holds no app's permission, so a real-time sender priority is refused to it.
     */
    public void sendShellBroadcast(Intent intent) throws CellException {
        int priority = intent.getIntExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 0);
        if (priority >= BroadcastQueue.RT_THRESHOLD) {
            throw new CellException(403, "Permission Denial: broadcast at real-time sender priority " + priority
                    + " from the shell requires " + ProxyContract.PERMISSION_REALTIME_BROADCAST);
        }
        broadcasts.sendBroadcast(application, intent, null, null, null);
    }

    public void uninstall(String pkg) throws CellException {
        InstalledApp app = packages.require(pkg);
        if (app.system) {
            throw new CellException(400, pkg + " is a system app and cannot be uninstalled");
        }
        teardown(app);
        processes.kill(pkg, "package removed");
        packages.remove(app);
        broadcasts.sendBroadcast(application, new Intent(Intent.ACTION_PACKAGE_REMOVED,
                Uri.parse("package:" + pkg)), null, null, null);
    }

    /** -Dorg.rtdroid.proxy.trace=true (the proxy's trace): each broadcast's hops into an app process. */
    private static final boolean TRACE = Boolean.getBoolean("org.rtdroid.proxy.trace");

    /** When the app process's receiver returned ({@code ranNanos} of its reply), -1 when not said. */
    private static long returnedNanos(String reply) {
        int at = reply.indexOf("\nranNanos=");
        if (!reply.startsWith("OK") || at < 0) {
            return -1;
        }
        int end = reply.indexOf('\n', at + 1);
        try {
            return Long.parseLong(reply.substring(at + "\nranNanos=".length(), end < 0 ? reply.length() : end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * One broadcast's way into an app process and back, in µs, from the stamps its reply carries
     * (every process reads the one CLOCK_MONOTONIC): the main looper's hand-off to the app's
     * dispatch thread, the IPC write to the app process's read, that read to its main looper
     * running the receiver, the receiver, and the way back to the dispatch thread.
     */
    private static void traceHops(InstalledApp app, Intent intent, long posted, String reply, long back) {
        java.util.Map<String, String> f = org.rtdroid.android.cell.os.IntentWire.fields(reply.split("\n"), 1);
        try {
            long dispatched = Long.parseLong(f.get("dispatchNanos"));
            long read = Long.parseLong(f.get("readNanos"));
            long main = Long.parseLong(f.get("mainNanos"));
            long ran = Long.parseLong(f.get("ranNanos"));
            CellLog.i(TAG, "TRACE app-process " + app.packageName + " " + intent.getAction() + " posted=" + posted
                    + " main->dispatch=" + (dispatched - posted) / 1000 + " dispatch->appRead=" + (read - dispatched) / 1000
                    + " appRead->appMain=" + (main - read) / 1000 + " appMain->ran=" + (ran - main) / 1000 + " ran->back=" + (back - ran) / 1000 + " us");
        } catch (RuntimeException e) {
            CellLog.i(TAG, "TRACE app-process " + app.packageName + ": no stamps in its reply");
        }
    }

    /**
     * The named apps run each in a process of its own, which attaches at {@code binderSocket};
     * the others stay in the system server's JVM. Before the cell serves.
     */
    public void useAppProcesses(java.util.Set<String> packages, Path binderSocket, Path frameworkDir) {
        if (!packages.isEmpty() && org.rtdroid.android.cell.os.Posix.geteuid() != 0) {
            CellLog.w(TAG, "apps named to run in processes of their own stay in the system server: an app process"
                    + " becomes its app's uid, which needs the system server to be root (" + String.join(", ", packages) + ")");
            packages = java.util.Set.of();
        }
        ProcessList list = new ProcessList(packages, binderSocket, frameworkDir);
        processes = list;
        services.processes = list;
        broadcasts.useAppProcesses(new org.rtdroid.android.cell.broadcast.AppProcessReceivers() {
            @Override
            public boolean hosts(InstalledApp app) {
                return app != null && !app.system && list.hosts(app.packageName);
            }

            @Override
            public java.util.concurrent.CompletableFuture<Long> deliver(InstalledApp app, String receiverClass,
                    android.content.Intent intent) {
                return post(app, "receive\nreceiver=" + receiverClass, receiverClass, intent);
            }

            @Override
            public java.util.concurrent.CompletableFuture<Long> deliverRegistered(InstalledApp app, long id,
                    android.content.Intent intent) {
                return post(app, "deliver\nid=" + id, "its receiver " + id, intent);
            }

            private java.util.concurrent.CompletableFuture<Long> post(InstalledApp app, String head, String receiver,
                    android.content.Intent intent) {
                String request;
                try {
                    request = head + "\n" + org.rtdroid.android.cell.os.IntentWire.encode(intent);
                } catch (IllegalArgumentException e) {
                    CellLog.w(TAG, "broadcast " + intent.getAction() + " not delivered to " + receiver + ": " + e.getMessage());
                    return java.util.concurrent.CompletableFuture.completedFuture(-1L);
                }
                long posted = System.nanoTime();
                return list.post(app, "broadcast " + intent.getAction(), request).whenComplete((reply, err) -> {
                    if (err != null || !reply.startsWith("OK")) {
                        CellLog.w(TAG, "broadcast " + intent.getAction() + " to " + receiver + " in its process failed: "
                                + (err != null ? err.getMessage() : reply));
                    } else if (TRACE) {
                        traceHops(app, intent, posted, reply, System.nanoTime());
                    }
                }).handle((reply, err) -> err != null ? -1L : returnedNanos(reply));
            }
        });
        activities.pauseInProcess = list::pauseActivity;
        list.onDeath(app -> {
            broadcasts.unregisterRemote(app, 0); // its registered receivers went with it
            main.post(() -> activities.leftProcess(app)); // and its activity
        });
        if (!packages.isEmpty()) {
            CellLog.i(TAG, "apps in processes of their own: " + String.join(", ", packages));
        }
    }

    /**
     * Starts an app's activity ({@code cls}, null: its launcher) from any thread but the main
     * looper: in the app's own process when it has one (started if needed: seconds, so never on
     * the main looper), else on the main looper in the system server. The activity's class name.
     */
    public String startActivity(String pkg, String cls) throws CellException {
        InstalledApp app = MainThread.call(() -> packages.require(pkg));
        if (processes.hosts(pkg) && !app.system) {
            String activity = processes.launch(app, cls);
            MainThread.call(() -> {
                activities.resumedInProcess(app, activity); // UI automation and the screenshot go there
                return null;
            });
            return activity;
        }
        return MainThread.call(() -> (cls == null ? launch(pkg) : launch(pkg, cls)).getClass().getName());
    }

    public Activity launch(String pkg) throws CellException {
        return activities.launch(packages.require(pkg));
    }

    /** Starts one of an app's declared activities by class name. */
    public Activity launch(String pkg, String cls) throws CellException {
        return activities.launch(packages.require(pkg), cls);
    }

    /**
     * Installs a signed APK from a file, from any thread but the main looper: the file is copied,
     * verified and unpacked in a staging folder, then installed on the main looper (the control
     * interface's install and adb's {@code pm install} both come here).
     */
    public InstalledApp installApk(Path apk) throws CellException {
        Path staging;
        try {
            staging = packages.stagingDir();
        } catch (IOException e) {
            throw new CellException(500, "cannot make a staging folder: " + e.getMessage());
        }
        try {
            SignedApk b;
            try {
                b = SignedApk.open(apk.toAbsolutePath(), staging);
            } catch (SignedApk.BadApkException e) {
                throw new CellException(400, e.getMessage());
            } catch (IOException e) {
                throw new CellException(400, "cannot read " + apk + ": " + e.getMessage());
            }
            return MainThread.call(() -> install(b));
        } finally {
            try {
                SignedApk.deleteTree(staging); // the app runs from its own copy
            } catch (IOException e) {
                CellLog.w(TAG, "staging folder " + staging + " left behind: " + e.getMessage());
            }
        }
    }

    public void stop(String pkg) throws CellException {
        InstalledApp app = packages.require(pkg);
        if (app.system) {
            throw new CellException(400, pkg + " is a system app and keeps running");
        }
        teardown(app);
        processes.kill(pkg, "force-stop");
        if (app.state != InstalledApp.State.CRASHED) {
            app.state = InstalledApp.State.STOPPED;
        }
        CellLog.i(TAG, "stopped " + pkg);
    }

    /** Destroys an app's activities and services and drops its runtime receivers. */
    private void teardown(InstalledApp app) {
        activities.finishActivitiesOf(app);
        activities.leftProcess(app);
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
    public void crashForeground(String where, Throwable t) {
        InstalledApp top = activities.topApp();
        if (top != null) {
            crash(top, where, t);
        } else {
            CellLog.e(TAG, where + " threw", t);
        }
    }

    /** Clean shutdown: every app's activities and services, then the proxy. */
    public void shutdown() {
        for (InstalledApp app : new ArrayList<>(packages.installed())) {
            if (!app.system) {
                try {
                    teardown(app);
                } catch (Throwable t) {
                    CellLog.e(TAG, "stopping " + app.packageName + " failed", t);
                }
            }
        }
        processes.shutdown();
        services.destroyServicesOf(null);
        activities.stop();
        broadcasts.stop();
    }
}
