package org.rtdroid.android.cell;

import org.rtdroid.android.cell.adb.AdbDevice;
import org.rtdroid.android.cell.adb.AdbServer;
import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.binder.BinderServer;
import org.rtdroid.android.cell.control.ControlServer;
import org.rtdroid.android.cell.control.UiAutomation;
import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.MainThread;

import android.app.Application;
import android.os.Looper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.robolectric.RuntimeEnvironment;

/**
 * The cell's life inside the sandbox: make the framework clock follow real time, become the
 * ActivityManager, install and start the proxy (a system app), serve the control interface,
 * print the READY line (the widget warm-up then runs first on the main looper), and wait for
 * POST /shutdown or SIGTERM.
 */
final class CellHost {
    static final String TAG = "AndroidCell";

    private static final CountDownLatch stopRequested = new CountDownLatch(1);
    private static final CountDownLatch stopped = new CountDownLatch(1);
    static volatile long readyNanos;
    static volatile long startNanos;
    static volatile long frameworkNanos;

    private CellHost() {
    }

    static void run() throws Exception {
        startNanos = Long.getLong(Main.PROP_START_NANOS, System.nanoTime());
        String region = System.getProperty(Main.PROP_REGION);
        int port = Integer.getInteger(Main.PROP_CONTROL_PORT, 0);
        ClockPump clock = ClockPump.start("cell-clock-pump");

        Application application = RuntimeEnvironment.getApplication();
        Path work = workDirectory();
        CellActivityManager am = new CellActivityManager(application, work.resolve("apps"),
                System.getProperty(Main.PROP_PLATFORM_CERT_SHA256));
        CellContextImplShadow.attach(am);
        am.start();
        frameworkNanos = System.nanoTime();
        MainThread.callAtStartUp(() -> {
            am.installSystemProxy();
            return null;
        });
        UiAutomation ui = new UiAutomation(am);
        // With adb keys the control port serves the same people adb does: those holding an
        // authorised key, who get this token over adb. Without (tests, the AOT training run) it
        // serves any loopback client, as it says at start.
        String controlToken = System.getProperty(Main.PROP_ADB_KEYS) == null ? null : newToken();
        if (controlToken == null) {
            CellLog.w(TAG, "control interface open to every local client (no --adb-keys)");
        }
        ControlServer server = ControlServer.start(port, am, ui, new ControlServer.Cell() {
            @Override
            public long uptimeMillis() {
                return CellHost.uptimeMillis();
            }

            @Override
            public long startupMillis() {
                return (readyNanos - startNanos) / 1_000_000;
            }

            @Override
            public long frameworkMillis() {
                return (frameworkNanos - startNanos) / 1_000_000;
            }

            @Override
            public String region() {
                return region;
            }

            @Override
            public void requestStop(String why) {
                CellHost.requestStop(why);
            }
        }, controlToken);
        // The work directory is traversable by the apps' uids (not listable), for the IPC socket.
        Files.setPosixFilePermissions(work, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        Path binderSocket = work.resolve("binder.sock");
        if (binderSocket.toString().length() > 100) { // sun_path holds 107 bytes
            Path shortDir = Files.createTempDirectory(Path.of("/tmp"), "rtdroid-binder-");
            Files.setPosixFilePermissions(shortDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
            binderSocket = shortDir.resolve("binder.sock");
        }
        am.useAppProcesses(appProcesses(), binderSocket, work.resolve("framework"));
        // zygote's role: the first app process's framework loads while the rest of the board comes
        // up (the IPC, adb, the RT cell), not at the first launch
        am.processes.preStart();
        BinderServer binder = BinderServer.start(am, binderSocket);
        AdbServer adb = null;
        if (System.getProperty(Main.PROP_ADB_PORT) != null) {
            String keys = System.getProperty(Main.PROP_ADB_KEYS);
            adb = AdbServer.start(Integer.getInteger(Main.PROP_ADB_PORT), new AdbDevice(am, ui, work.resolve("data"), controlToken, binder),
                    keys == null ? null : Path.of(keys));
        }
        Thread hook = new Thread(() -> {
            ShutdownFlag.markSignalled();
            requestStop("signal");
            try {
                stopped.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "cell-shutdown-hook");
        Runtime.getRuntime().addShutdownHook(hook);

        // The widget warm-up needs nothing that READY promises (the framework, the proxy on the
        // region, the control interface) and costs as much again as the framework's start: it
        // runs right after READY, first on the main looper, so that the board is ready that much
        // sooner and the first app launch still finds the widgets loaded (it waits for it there).
        // When every app runs in a process of its own, no app's widgets are drawn here: the
        // pre-started app process does its own (zygote's preload) and the system server none.
        boolean warmUp = !am.processes.hostsEveryApp();
        CompletableFuture<Long> warmup = warmUp ? MainThread.postAfterReady(() -> Warmup.run(application))
                : CompletableFuture.completedFuture(0L);
        readyNanos = System.nanoTime();
        warmup.whenComplete((millis, failure) -> {
            long afterReady = (System.nanoTime() - readyNanos) / 1_000_000;
            if (!warmUp) {
                return;
            }
            if (failure == null) {
                CellLog.i(TAG, "widget warm-up done in " + millis + " ms (" + afterReady + " ms after READY)");
            } else {
                CellLog.e(TAG, "widget warm-up failed " + afterReady + " ms after READY: " + failure
                        + " (the first app launch loads the widgets itself)", null);
            }
        });
        CellLog.i(TAG, "ready in " + (readyNanos - startNanos) / 1_000_000 + " ms (framework up after "
                + (frameworkNanos - startNanos) / 1_000_000 + " ms; " + (warmUp ? "the widget warm-up runs next" : "no widget warm-up: every app runs in a process of its own") + "): AOSP framework SDK "
                + android.os.Build.VERSION.SDK_INT + ", region " + region + ", main looper on thread '"
                + Looper.getMainLooper().getThread().getName() + "'");
        System.out.println("ANDROID CELL READY port=" + server.port() + (adb == null ? "" : " adb=" + adb.port()));
        System.out.flush();

        stopRequested.await();
        CellLog.i(TAG, "shutting down");
        server.stop();
        if (adb != null) {
            adb.stop();
        }
        binder.stop();
        if (!binder.socket().startsWith(work)) {
            deleteTree(binder.socket().getParent());
        }
        try {
            MainThread.call(() -> {
                am.shutdown();
                return null;
            });
        } catch (CellException e) {
            CellLog.e(TAG, "clean shutdown of apps failed: " + e.getMessage(), null);
        }
        CellContextImplShadow.detach();
        clock.close();
        deleteTree(work);
        CellLog.i(TAG, "stopped");
        if (!ShutdownFlag.inShutdownHook()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
        stopped.countDown();
    }

    /** The packages named by {@code --app-process}: each runs in a process of its own. */
    private static java.util.Set<String> appProcesses() {
        String list = System.getProperty(Main.PROP_APP_PROCESSES, "");
        java.util.Set<String> s = new java.util.LinkedHashSet<>();
        for (String p : list.split(",")) {
            if (!p.isBlank()) {
                s.add(p.strip());
            }
        }
        return s;
    }

    private static String newToken() {
        byte[] b = new byte[24];
        new java.security.SecureRandom().nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    static void requestStop(String why) {
        if (stopRequested.getCount() > 0) {
            CellLog.i(TAG, "stop requested (" + why + ")");
        }
        stopRequested.countDown();
    }

    static long uptimeMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * The cell's work directory (installed apps, their data directories, the IPC socket). Each
     * app's uid must reach its own data directory and the socket, so every ancestor must be
     * traversable by others: java.io.tmpdir when it is, /tmp otherwise (a checkout under a
     * private home directory, or a 0700 directory from mktemp).
     */
    static Path workDirectory() throws IOException {
        Path base = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        if (!traversableByOthers(base)) {
            CellLog.i(TAG, base + " is not traversable by the apps' uids: the cell's work directory goes under /tmp");
            base = Path.of("/tmp");
        }
        return Files.createTempDirectory(base, "rtdroid-android-cell-");
    }

    static boolean traversableByOthers(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            try {
                if (!Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return true;
    }

    /** Deletes a directory tree, best effort (a missing tree is nothing to do). */
    static void deleteTree(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // a temp file; the OS cleans /tmp eventually
                }
            });
        } catch (IOException ignored) {
            // nothing to delete
        }
    }
}
