package org.rtdroid.android.cell;

import java.net.URLClassLoader;
import java.nio.file.Path;

/** An app the cell has installed: its bundle, class loader and run state. */
final class InstalledApp {
    enum State { INSTALLED, RUNNING, STOPPED, CRASHED }

    final String packageName;
    final AppBundle bundle; // null for system apps
    final ClassLoader loader;
    final Path installDir;
    final boolean system;
    volatile State state = State.INSTALLED;
    volatile String crash; // first line of the last crash
    volatile long crashes;

    InstalledApp(String packageName, AppBundle bundle, ClassLoader loader, Path installDir, boolean system) {
        this.packageName = packageName;
        this.bundle = bundle;
        this.loader = loader;
        this.installDir = installDir;
        this.system = system;
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
