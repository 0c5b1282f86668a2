package org.rtdroid.android.cell.pm;

import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.Posix;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.app.Application;
import android.app.Service;
import android.content.BroadcastReceiver;
import android.content.pm.ActivityInfo;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.content.pm.ServiceInfo;
import android.os.Bundle;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.rtdroid.android.proxy.ProxyContract;

/**
 * The cell's PackageManager side: installs app bundles (each in its own class loader, every
 * declared component checked to load and be of its kind), registers them with the framework's
 * PackageManager, and answers which apps are installed. Changes run on the main looper; reads
 * come from any thread.
 */
public final class CellPackageManager {
    static final String TAG = "PackageManager";
    public static final String PROXY_SERVICE = "org.rtdroid.android.proxy.RTsProxyService";

    private final Application application;
    private final Path appsDir;
    private final String platformCertSha256;
    private final Map<String, InstalledApp> apps = new ConcurrentHashMap<>();
    /** Signature-level permissions and the package that defines each (the proxy's, today). */
    private final Map<String, String> signaturePermissions = new ConcurrentHashMap<>();

    /** Android's first application uid (android.os.Process.FIRST_APPLICATION_UID); apps get the lowest free one. */
    public static final int FIRST_APPLICATION_UID = 10000;
    public static final int LAST_APPLICATION_UID = 19999;
    /** Where apps' data directories live: the cell's /data/data. */
    private final Path dataRoot;

    public CellPackageManager(Application application, Path appsDir, String platformCertSha256) {
        this.application = application;
        this.appsDir = appsDir;
        this.dataRoot = appsDir.toAbsolutePath().getParent().resolve("data").resolve("data");
        this.platformCertSha256 = platformCertSha256;
    }

    /** A fresh, empty directory in the cell's own space to verify and unpack an APK in. */
    public Path stagingDir() throws IOException {
        Files.createDirectories(appsDir);
        return Files.createTempDirectory(appsDir, ".staging-");
    }

    /** The lowest application uid no installed app holds (installs run on the main looper, one at a time). */
    private int freeUid() throws CellException {
        java.util.Set<Integer> taken = new java.util.HashSet<>();
        apps.values().forEach(a -> taken.add(a.uid));
        for (int uid = FIRST_APPLICATION_UID; uid <= LAST_APPLICATION_UID; uid++) {
            if (!taken.contains(uid)) {
                return uid;
            }
        }
        throw new CellException(507, "INSTALL_FAILED_INSUFFICIENT_STORAGE: every application uid is taken");
    }

    /**
     * The app's data directory (files/, cache/), mode 0700, owned by the app's uid and gid where the
     * cell runs as root (as installd makes it); elsewhere the cell's own.
     */
    private void makeDataDir(Path dataDir, int uid) throws IOException {
        SignedApk.deleteTree(dataDir); // a previous install's data is not this one's
        for (Path d : new Path[] {dataDir, dataDir.resolve("files"), dataDir.resolve("cache")}) {
            Files.createDirectories(d);
            Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            if (Posix.geteuid() == 0 && !Posix.chown(d, uid, uid)) {
                throw new IOException("chown " + d + " to " + uid + " refused");
            }
        }
    }

    /** The proxy: a system app whose classes ship with the host. */
    public InstalledApp installSystemProxy() {
        // Its manifest defines the signature permission that guards its service; the proxy is
        // signed with the platform's certificate (it ships with the cell, as a system image's apps).
        // It runs in the system server, with the system server's uid (a platform app's
        // android.uid.system on a device).
        InstalledApp proxy = new InstalledApp(Apps.PROXY_PACKAGE, null, getClass().getClassLoader(), null, true,
                platformCertSha256, platformCertSha256 == null ? Set.of()
                        : Set.of(ProxyContract.PERMISSION_CROSS_CONTEXT, ProxyContract.PERMISSION_REALTIME_BROADCAST),
                Posix.geteuid(), null);
        signaturePermissions.put(ProxyContract.PERMISSION_CROSS_CONTEXT, Apps.PROXY_PACKAGE);
        signaturePermissions.put(ProxyContract.PERMISSION_REALTIME_BROADCAST, Apps.PROXY_PACKAGE);
        PackageInfo pi = packageInfo(Apps.PROXY_PACKAGE, "RTDroid proxy", 1, "0.1.0", List.of(), List.of(),
                List.of(PROXY_SERVICE), List.of());
        pi.applicationInfo.flags |= ApplicationInfo.FLAG_SYSTEM | ApplicationInfo.FLAG_PERSISTENT;
        shadowOf(application.getPackageManager()).installPackage(pi);
        apps.put(Apps.PROXY_PACKAGE, proxy);
        proxy.state = InstalledApp.State.RUNNING;
        return proxy;
    }

    public InstalledApp install(SignedApk apk) throws CellException {
        AppBundle b = apk.bundle;
        InstalledApp installed = apps.get(b.packageName);
        if (installed != null) {
            // Android's update rules: same signer, and never an older version.
            if (!apk.certificateSha256.equals(installed.certificateSha256)) {
                throw new CellException(409, "INSTALL_FAILED_UPDATE_INCOMPATIBLE: package " + b.packageName
                        + " is installed signed by certificate SHA-256 " + installed.certificateSha256
                        + "; this APK is signed by " + apk.certificateSha256);
            }
            if (b.versionCode < installed.bundle.versionCode) {
                throw new CellException(409, "INSTALL_FAILED_VERSION_DOWNGRADE: package " + b.packageName
                        + " versionCode " + b.versionCode + " is lower than the installed " + installed.bundle.versionCode);
            }
            throw new CellException(409, "package " + b.packageName + " is already installed (uninstall it first)");
        }
        if (Apps.SYSTEM.equals(b.packageName) || b.packageName.startsWith("android.")
                || b.packageName.startsWith("org.rtdroid.proxy")) {
            throw new CellException(400, "package name " + b.packageName + " is reserved for the system");
        }
        Path dir = appsDir.resolve(b.packageName);
        Path jar = dir.resolve(AppBundle.CLASSES);
        int uid = freeUid();
        Path dataDir = dataRoot.resolve(b.packageName);
        URLClassLoader loader;
        try {
            makeDataDir(dataDir, uid);
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
            try {
                SignedApk.deleteTree(dataDir);
            } catch (IOException ignored) {
                // the next install of the package empties it
            }
            throw e;
        }
        InstalledApp app = new InstalledApp(b.packageName, b, loader, dir, false, apk.certificateSha256,
                grants(b, apk.certificateSha256), uid, dataDir);
        Apps.register(loader, b.packageName);
        shadowOf(application.getPackageManager()).installPackage(packageInfo(b.packageName, b.label, b.versionCode,
                b.versionName, b.channels, names(b.activities), names(b.services), names(b.receivers)));
        apps.put(b.packageName, app);
        CellLog.i(TAG, "installed " + b.packageName + " (" + b.label + ") versionCode " + b.versionCode
                + ", certificate SHA-256 " + apk.certificateSha256 + ", channels " + b.channels + ", granted "
                + app.permissions);
        return app;
    }

    /**
     * Android's rule for signature permissions: a requested one is granted only when the app is
     * signed with the certificate of the app that defines it. Permissions nobody defines are not
     * granted.
     */
    private Set<String> grants(AppBundle b, String cert) {
        Set<String> granted = new TreeSet<>();
        for (String perm : b.usesPermissions) {
            String owner = signaturePermissions.get(perm);
            InstalledApp definer = owner == null ? null : apps.get(owner);
            if (definer == null) {
                CellLog.w(TAG, b.packageName + ": permission " + perm + " is not defined in this cell; not granted");
            } else if (definer.certificateSha256 != null && definer.certificateSha256.equals(cert)) {
                granted.add(perm);
            } else {
                CellLog.w(TAG, b.packageName + ": signature permission " + perm + " not granted: signed by "
                        + cert + ", not by the certificate of " + owner);
            }
        }
        return Set.copyOf(granted);
    }

    /** Whether {@code pkg} holds {@code permission} (the system and its proxy hold every one). */
    public boolean holds(String pkg, String permission) {
        if (pkg == null || Apps.SYSTEM.equals(pkg) || Apps.PROXY_PACKAGE.equals(pkg)) {
            return true;
        }
        InstalledApp app = apps.get(pkg);
        return app != null && app.permissions.contains(permission);
    }

    /** Forgets an app whose components the activity manager has already taken down. */
    public void remove(InstalledApp app) {
        apps.remove(app.packageName);
        if (app.dataDir != null) {
            try {
                SignedApk.deleteTree(app.dataDir); // as on Android, an uninstall takes the app's data
            } catch (IOException e) {
                CellLog.w(TAG, "data of " + app.packageName + " left in " + app.dataDir + ": " + e.getMessage());
            }
        }
        shadowOf(application.getPackageManager()).removePackage(app.packageName);
        Apps.unregister(app.loader);
        app.close();
        CellLog.i(TAG, "uninstalled " + app.packageName);
    }

    public InstalledApp require(String pkg) throws CellException {
        InstalledApp app = apps.get(pkg);
        if (app == null) {
            throw new CellException(404, "unknown package '" + pkg + "' (installed: " + apps.keySet() + ")");
        }
        return app;
    }

    /** The installed app, or null. */
    public InstalledApp get(String pkg) {
        return apps.get(pkg);
    }

    public Collection<InstalledApp> installed() {
        return apps.values();
    }

    private static void checkKind(ClassLoader loader, AppBundle.Component c, Class<?> kind) throws CellException {
        Class<?> cls;
        try {
            cls = Class.forName(c.className(), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new CellException(400, "malformed bundle: " + c.kind() + " " + c.className() + " does not load: " + e);
        }
        if (!kind.isAssignableFrom(cls)) {
            throw new CellException(400, "malformed bundle: " + c.kind() + " " + c.className() + " is not a "
                    + kind.getName());
        }
    }

    private static List<String> names(List<AppBundle.Component> l) {
        List<String> out = new ArrayList<>();
        for (AppBundle.Component c : l) {
            out.add(c.className());
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
            pi.activities[i] = componentInfo(new ActivityInfo(), activities.get(i), ai);
        }
        pi.services = new ServiceInfo[services.size()];
        for (int i = 0; i < services.size(); i++) {
            pi.services[i] = componentInfo(new ServiceInfo(), services.get(i), ai);
        }
        pi.receivers = new ActivityInfo[receivers.size()];
        for (int i = 0; i < receivers.size(); i++) {
            pi.receivers[i] = componentInfo(new ActivityInfo(), receivers.get(i), ai);
        }
        return pi;
    }

    private static <T extends android.content.pm.ComponentInfo> T componentInfo(T info, String name,
            ApplicationInfo ai) {
        info.name = name;
        info.packageName = ai.packageName;
        info.applicationInfo = ai;
        info.exported = true;
        return info;
    }

    private static void closeQuietly(URLClassLoader l) {
        try {
            l.close();
        } catch (IOException ignored) {
            // nothing loaded from it yet
        }
    }
}
