package org.rtdroid.android.cell.adb;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.binder.BinderServer;
import org.rtdroid.android.cell.control.UiAutomation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What an adb client reaches on this device: the services of its streams ({@code shell:},
 * {@code shell,v2,...:} with the shell protocol, {@code exec:}, {@code sync:}) and the file
 * system as the shell user sees it: {@code /data/local/tmp} and {@code /sdcard}
 * ({@code /storage/emulated/0}), each a folder of the cell's own.
 */
public final class AdbDevice {
    /** The protocol features announced in the banner; without {@code cmd}, adb installs by push + pm. */
    static final String FEATURES = "shell_v2";
    final CellActivityManager am;
    final UiAutomation ui;
    private final Path tmp;
    private final Path sdcard;
    /** The system server's IPC endpoint (dumpsys binder). */
    final BinderServer binder;
    /** What the control interface asks of its clients (null: it asks nothing); adb hands it out. */
    final String controlToken;
    /** The server this device answers through (its counters for dumpsys). */
    volatile AdbServer server;

    /** {@code dataDir}: the cell's folder where the shell user's places live. */
    public AdbDevice(CellActivityManager am, UiAutomation ui, Path dataDir, String controlToken, BinderServer binder)
            throws IOException {
        this.binder = binder;
        this.am = am;
        this.ui = ui;
        this.controlToken = controlToken;
        this.tmp = Files.createDirectories(dataDir.resolve("local/tmp")).toAbsolutePath().normalize();
        this.sdcard = Files.createDirectories(dataDir.resolve("sdcard")).toAbsolutePath().normalize();
    }

    /** The handler of a service a client opens, or null when this device offers none by that name. */
    AdbService open(String service) {
        if (service.equals("sync:")) {
            return new SyncService(this);
        }
        int colon = service.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String kind = service.substring(0, colon);
        String command = service.substring(colon + 1);
        if (kind.equals("exec")) {
            return s -> new ShellCommands(this, new ShellChannel(s, false)).run(command);
        }
        if (kind.equals("shell") || kind.startsWith("shell,")) {
            boolean protocol = java.util.Arrays.asList(kind.split(",")).contains("v2");
            return s -> new ShellCommands(this, new ShellChannel(s, protocol)).run(command);
        }
        return null;
    }

    /**
     * A device path the shell user may use, as a path of the cell, or null: only under
     * {@code /data/local/tmp} and {@code /sdcard}; {@code ..} cannot climb out.
     */
    Path resolve(String devicePath) {
        String p = devicePath.replaceAll("/+", "/");
        String[][] roots = {{"/data/local/tmp", "tmp"}, {"/sdcard", "sd"}, {"/storage/emulated/0", "sd"},
                {"/storage/self/primary", "sd"}};
        for (String[] r : roots) {
            if (p.equals(r[0]) || p.equals(r[0] + "/") || p.startsWith(r[0] + "/")) {
                Path base = r[1].equals("tmp") ? tmp : sdcard;
                Path resolved = base.resolve(p.substring(r[0].length()).replaceFirst("^/", "")).normalize();
                return resolved.startsWith(base) ? resolved : null;
            }
        }
        return null;
    }
}
