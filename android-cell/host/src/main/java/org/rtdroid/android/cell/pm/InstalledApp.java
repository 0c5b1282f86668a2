package org.rtdroid.android.cell.pm;

import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Set;

/** An app the cell has installed: its bundle, signer, permissions, class loader and run state. */
public final class InstalledApp {
    public enum State { INSTALLED, RUNNING, STOPPED, CRASHED }

    public final String packageName;
    public final AppBundle bundle; // null for system apps
    public final ClassLoader loader;
    final Path installDir;
    public final boolean system;
    /** SHA-256 of the signer's certificate (hex); for the proxy, the platform's (null if none given). */
    public final String certificateSha256;
    /** Permissions granted at install. */
    public final Set<String> permissions;
    public volatile State state = State.INSTALLED;
    public volatile String crash; // first line of the last crash
    public volatile long crashes;

    /** The app's Linux uid (Android's app range from {@link CellPackageManager#FIRST_APPLICATION_UID}), or the system's. */
    public final int uid;
    /** Its private data directory ({@code /data/data/<package>} on a device), owned by its uid where the cell is root. */
    public final Path dataDir;

    InstalledApp(String packageName, AppBundle bundle, ClassLoader loader, Path installDir, boolean system,
            String certificateSha256, Set<String> permissions, int uid, Path dataDir) {
        this.uid = uid;
        this.dataDir = dataDir;
        this.packageName = packageName;
        this.bundle = bundle;
        this.loader = loader;
        this.installDir = installDir;
        this.system = system;
        this.certificateSha256 = certificateSha256;
        this.permissions = permissions;
    }

    /** The app's code as the cell installed it (its own copy). */
    public Path codeJar() {
        return installDir.resolve(AppBundle.CLASSES);
    }

    void close() {
        if (loader instanceof URLClassLoader) {
            try {
                ((URLClassLoader) loader).close();
            } catch (java.io.IOException ignored) {
                // the jar is in the cell's own directory; nothing else holds it
            }
        }
    }
}
