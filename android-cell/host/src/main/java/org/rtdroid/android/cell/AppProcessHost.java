package org.rtdroid.android.cell;

import org.rtdroid.android.cell.binder.BinderClient;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.Posix;

import android.app.Activity;
import android.content.Intent;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.view.View;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.robolectric.Robolectric;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.android.controller.ActivityController;

/**
 * An app process's life inside its sandbox (AOSP's {@code ActivityThread}): as root, the
 * framework comes up and the jars it loads classes from are opened (zygote's preload); then the
 * whole process becomes the app's uid, before any of the app's code runs; then it attaches to the
 * system server over its IPC, where the kernel names it, and serves the system server's calls on
 * that connection ({@code launch activity=CLS}: created, started, resumed and its first frame
 * drawn). The system server closing the connection ends the process.
 */
final class AppProcessHost {
    static final String TAG = "ActivityThread";
    /** The exit status of a process whose app code threw (the system server shows the crash). */
    static final int EXIT_CRASHED = 10;
    static final int EXIT_NOT_ATTACHED = 3;

    private static ActivityController<? extends Activity> top;

    private AppProcessHost() {
    }

    static void run() throws Exception {
        long start = Long.getLong(AppProcessMain.PROP_START_NANOS, System.nanoTime());
        Path socket = Path.of(System.getProperty(AppProcessMain.PROP_BINDER));
        ClockPump.start("app-clock-pump"); // the process ends with it
        android.app.Application application = RuntimeEnvironment.getApplication(); // the framework up
        long framework = System.nanoTime();
        // Zygote's preload: the widgets, native graphics, fonts and styles loaded once (Warmup,
        // as the cell does after READY), and every jar this process will load classes from opened
        // while it is root (a lookup that finds nothing opens each jar of a class loader's path
        // and keeps it open), so that after the uid drops classes still load where the
        // checkout's folders are private to root (a 0700 clone).
        org.rtdroid.android.cell.os.MainThread.callAtStartUp(() -> Warmup.run(application));
        for (ClassLoader l : new ClassLoader[] {AppProcessHost.class.getClassLoader(), ClassLoader.getSystemClassLoader()}) {
            l.getResource("org/rtdroid/android/cell/no-such-resource");
        }
        long preloaded = System.nanoTime();
        System.out.println("template ready: framework up in " + ms(framework - start) + " ms, preloaded in "
                + ms(preloaded - framework) + " ms; waiting for its app");
        System.out.flush();
        Map<String, String> spec = specialization(new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8)).readLine());
        long asked = System.nanoTime();
        String pkg = spec.get("package");
        int uid = Integer.parseInt(spec.get("uid"));
        Path code = Path.of(spec.get("code"));
        URLClassLoader loader = new URLClassLoader("app:" + pkg, new URL[] {code.toUri().toURL()},
                AppProcessHost.class.getClassLoader());
        loader.getResource("org/rtdroid/android/cell/no-such-resource"); // its jar opened as root too
        if (!Posix.becomeApp(uid, uid) || Posix.geteuid() != uid) {
            System.err.println("error: the app process cannot become uid " + uid + " (it must start as root)");
            Runtime.getRuntime().halt(EXIT_NOT_ATTACHED);
        }
        // its own temporary files from now on, in its own cache folder
        System.setProperty("java.io.tmpdir", Path.of(spec.get("data"), "cache").toString());
        CellLog.log('I', TAG, pkg, "pid " + ProcessHandle.current().pid() + " is uid " + uid + " "
                + ms(System.nanoTime() - asked) + " ms after it was asked to become " + pkg, null);
        try (BinderClient binder = BinderClient.connect(socket)) {
            String attached = binder.transact("attachApplication");
            if (!attached.startsWith("OK")) {
                System.err.println("error: the system server refused the attach: " + attached);
                Runtime.getRuntime().halt(EXIT_NOT_ATTACHED);
            }
            CellLog.log('I', TAG, pkg, "attached " + ms(System.nanoTime() - asked) + " ms after it was asked", null);
            String request;
            while ((request = binder.read()) != null) {
                binder.write(handle(pkg, loader, request));
            }
        } catch (IOException e) {
            CellLog.log('W', TAG, pkg, "the system server's connection ended: " + e.getMessage(), null);
        }
        CellLog.log('I', TAG, pkg, "the system server let go of the process; it ends", null);
    }

    /**
     * The system server's one line: {@code specialize package=PKG uid=UID code=JAR data=DIR}; a
     * line that is not one (or the end of stdin: the system server went away) ends the process.
     */
    static Map<String, String> specialization(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        if (line != null && line.startsWith("specialize ")) {
            for (String kv : line.substring(11).trim().split(" ")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    m.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        String why = null;
        if (line == null) {
            why = "the system server closed its stdin before naming an app";
        } else if (!m.keySet().equals(java.util.Set.of("package", "uid", "code", "data"))) {
            why = "not a specialization: '" + line + "' (specialize package=PKG uid=UID code=JAR data=DIR)";
        } else if (!m.get("package").matches("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+")) {
            why = "package '" + m.get("package") + "' is not a package name";
        } else if (!m.get("uid").matches("1[0-9]{4}")) {
            why = "uid " + m.get("uid") + " is not an application uid (10000..19999)";
        } else if (!java.nio.file.Files.isRegularFile(Path.of(m.get("code")))) {
            why = "code " + m.get("code") + " is not a file";
        }
        if (why != null) {
            System.err.println("error: " + why);
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_NOT_ATTACHED);
        }
        return m;
    }

    private static String handle(String pkg, ClassLoader loader, String request) {
        String[] lines = request.split("\n");
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            if (eq > 0) {
                args.put(lines[i].substring(0, eq), lines[i].substring(eq + 1));
            }
        }
        if (!lines[0].equals("launch") || args.get("activity") == null) {
            return "ERR no method '" + lines[0] + "' (launch activity=CLS)";
        }
        String cls = args.get("activity");
        java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
        new android.os.Handler(android.os.Looper.getMainLooper()).post(() -> {
            try {
                done.complete(launch(pkg, loader, cls));
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        try {
            long frame = done.get();
            return "OK\nactivity=" + cls + "\nframeMicros=" + frame;
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            // App code threw: as on Android, the process dies; the system server shows why.
            CellLog.log('E', "AndroidRuntime", pkg, "FATAL EXCEPTION in " + pkg + " (launching " + cls + ")",
                    e.getCause() != null ? e.getCause() : e);
            System.out.flush();
            Runtime.getRuntime().halt(EXIT_CRASHED);
            return "ERR crashed";
        }
    }

    /** The activity created, started, resumed, and its window drawn once; the draw's microseconds. */
    private static long launch(String pkg, ClassLoader loader, String cls) throws Exception {
        if (top != null) {
            top.pause().stop();
        }
        Class<? extends Activity> c = Class.forName(cls, true, loader).asSubclass(Activity.class);
        top = Robolectric.buildActivity(c, new Intent(Intent.ACTION_MAIN).setClassName(pkg, cls)).setup();
        long t0 = System.nanoTime();
        Activity a = top.get();
        View root = a.getWindow().getDecorView();
        android.util.DisplayMetrics dm = a.getResources().getDisplayMetrics();
        root.measure(View.MeasureSpec.makeMeasureSpec(dm.widthPixels, View.MeasureSpec.EXACTLY),
                View.MeasureSpec.makeMeasureSpec(dm.heightPixels, View.MeasureSpec.EXACTLY));
        root.layout(0, 0, dm.widthPixels, dm.heightPixels);
        Bitmap frame = Bitmap.createBitmap(dm.widthPixels, dm.heightPixels, Bitmap.Config.ARGB_8888);
        root.draw(new Canvas(frame));
        frame.recycle();
        CellLog.log('I', TAG, pkg, "Displayed " + pkg + "/" + cls, null);
        return (System.nanoTime() - t0) / 1000;
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
