package org.rtdroid.android.cell;

import org.rtdroid.android.cell.binder.BinderClient;
import org.rtdroid.android.cell.control.UiAutomation;
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
    /** Whether {@link #top} is resumed (another app's activity on top pauses and stops it). */
    private static boolean topResumed;
    /** The app this process became, its class loader, and its services (main looper). */
    static volatile String pkg;
    static volatile ClassLoader loader;
    private static final Map<String, LocalService> services = new LinkedHashMap<>();
    private static final Map<Long, android.os.IBinder> handles = new java.util.concurrent.ConcurrentHashMap<>();
    private static long nextHandle = 1;

    /** One of the app's services in this process (AOSP's ServiceRecord, the process's side). */
    private static final class LocalService {
        final org.robolectric.android.controller.ServiceController<? extends android.app.Service> controller;
        boolean started;
        int lastStartId;
        int bindCount;
        android.os.IBinder binder;
        long handle;

        LocalService(org.robolectric.android.controller.ServiceController<? extends android.app.Service> c) {
            this.controller = c;
        }
    }

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
        AppProcessHost.pkg = pkg;
        int uid = Integer.parseInt(spec.get("uid"));
        Path code = Path.of(spec.get("code"));
        URLClassLoader loader = new URLClassLoader("app:" + pkg, new URL[] {code.toUri().toURL()},
                AppProcessHost.class.getClassLoader());
        loader.getResource("org/rtdroid/android/cell/no-such-resource"); // its jar opened as root too
        AppProcessHost.loader = loader;
        org.rtdroid.android.cell.pm.Apps.register(loader, pkg); // its code names its package (getPackageName, logcat)
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
            // the app's own calls out (startService, sendBroadcast, bindService) go to the system
            // server on a connection of their own, where the kernel names this process again
            AppProcessContextShadow.connect(socket);
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
        long readNanos = System.nanoTime();
        String[] lines = request.split("\n");
        Map<String, String> args = org.rtdroid.android.cell.os.IntentWire.fields(lines, 1);
        String method = lines[0];
        if (method.equals("transact")) {
            // on this connection's thread, as on a device's binder thread (not the main looper)
            android.os.IBinder b = handles.get(Long.parseLong(args.getOrDefault("handle", "-1")));
            return b == null ? "ERR no binder " + args.get("handle") + " in this process"
                    : org.rtdroid.android.cell.os.ProxyBinder.serve(b, args);
        }
        java.util.concurrent.Callable<String> call;
        String what;
        switch (method) {
            case "launch" -> {
                String cls = args.get("activity");
                if (cls == null) {
                    return "ERR launch needs activity=CLS";
                }
                what = "launching " + cls;
                call = () -> "OK\nactivity=" + cls + "\nframeMicros=" + launch(pkg, loader, cls);
            }
            case "pause" -> {
                // another app's activity came on top (the system server's activity stack says so)
                what = "pausing its activity";
                call = () -> {
                    String paused = pauseAndStop();
                    if (!paused.equals("none")) {
                        CellLog.log('I', TAG, pkg, "paused and stopped " + paused + ": another app's activity is on top", null);
                    }
                    return "OK\npaused=" + paused;
                };
            }
            case "ui" -> {
                what = "the UI action " + args.get("op") + " on '" + args.get("id") + "'";
                call = () -> ui(args);
            }
            case "deliver" -> {
                long id = Long.parseLong(args.remove("id"));
                Intent intent;
                try {
                    intent = org.rtdroid.android.cell.os.IntentWire.decode(args);
                } catch (IllegalArgumentException e) {
                    return "ERR " + e.getMessage();
                }
                what = "its receiver " + id + " (" + intent.getAction() + ")";
                call = () -> {
                    android.content.BroadcastReceiver r = AppProcessContextShadow.registered(id);
                    if (r == null) {
                        return "OK\nunregistered=" + id; // unregistered while the broadcast came
                    }
                    r.onReceive(RuntimeEnvironment.getApplication(), intent);
                    return "OK\nreceived=" + intent.getAction();
                };
            }
            case "receive", "startService", "bindService", "unbindService" -> {
                String cls = args.remove(method.equals("receive") ? "receiver" : "service");
                if (cls == null) {
                    return "ERR " + method + " needs " + (method.equals("receive") ? "receiver" : "service") + "=CLS";
                }
                Intent intent;
                try {
                    intent = org.rtdroid.android.cell.os.IntentWire.decode(args);
                } catch (IllegalArgumentException e) {
                    return "ERR " + e.getMessage();
                }
                what = method + " " + cls + (intent.getAction() != null ? " (" + intent.getAction() + ")" : "");
                call = switch (method) {
                    case "receive" -> () -> receive(loader, cls, intent);
                    case "startService" -> () -> startService(loader, cls, intent);
                    case "bindService" -> () -> bindService(loader, cls, intent);
                    default -> () -> unbindService(cls);
                };
            }
            default -> {
                return "ERR no method '" + method + "' (launch, pause, ui, receive, deliver, startService, bindService, unbindService, transact)";
            }
        }
        java.util.concurrent.CompletableFuture<String> done = new java.util.concurrent.CompletableFuture<>();
        new android.os.Handler(android.os.Looper.getMainLooper()).post(() -> {
            try {
                long mainNanos = System.nanoTime();
                String reply = call.call();
                // where a call's time went in this process (CLOCK_MONOTONIC, the system server's too):
                // read off the connection, run on the main looper (the proxy's trace names each hop)
                done.complete(reply.startsWith("OK") ? reply + "\nreadNanos=" + readNanos + "\nmainNanos=" + mainNanos
                        + "\nranNanos=" + System.nanoTime() : reply);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        try {
            return done.get();
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            // App code threw: as on Android, the process dies; the system server shows why.
            CellLog.log('E', "AndroidRuntime", pkg, "FATAL EXCEPTION in " + pkg + " (" + what + ")",
                    e.getCause() != null ? e.getCause() : e);
            System.out.flush();
            Runtime.getRuntime().halt(EXIT_CRASHED);
            return "ERR crashed";
        }
    }

    /** The screenshot whose chunks the system server is fetching (main looper). */
    private static byte[] screenshot;

    /**
     * UI automation on this process's activity, forwarded by the system server (main looper): the
     * action's JSON, a screenshot's chunk at {@code offset} (0 draws a new one), or {@code ERR
     * status reason} for what the system server refuses to its caller. App code that throws ends
     * the process (handle's caller), as an exception in a click handler does on Android.
     */
    private static String ui(Map<String, String> args) throws Exception {
        if (top == null) {
            return "ERR 409 no activity of " + pkg + " is in the foreground";
        }
        Activity a = top.get();
        String op = args.getOrDefault("op", "");
        try {
            if (!op.equals("screenshot")) {
                return "OK\njson=" + UiAutomation.perform(a, op, args.getOrDefault("id", ""), args.get("value"));
            }
            int offset;
            try {
                offset = Integer.parseInt(args.getOrDefault("offset", "0"));
            } catch (NumberFormatException e) {
                return "ERR 400 offset " + args.get("offset") + " is not a number";
            }
            if (offset == 0) {
                screenshot = UiAutomation.screenshot(a);
            }
            byte[] png = screenshot;
            if (png == null || offset < 0 || offset >= png.length) {
                return "ERR 400 no screenshot has a byte " + offset;
            }
            int n = Math.min(UiAutomation.SCREENSHOT_CHUNK, png.length - offset);
            if (offset + n == png.length) {
                screenshot = null;
            }
            return "OK\nbytes=" + png.length + "\npng=" + java.util.Base64.getEncoder().encodeToString(
                    java.util.Arrays.copyOfRange(png, offset, offset + n));
        } catch (org.rtdroid.android.cell.os.CellException e) {
            return "ERR " + e.status + " " + e.getMessage();
        } catch (UiAutomation.AppCodeThrew e) {
            throw e.getCause() instanceof Exception x ? x : new RuntimeException(e.getCause());
        }
    }

    /** A manifest receiver, instantiated for each broadcast as on a device; main looper. */
    private static String receive(ClassLoader loader, String cls, Intent intent) throws Exception {
        android.content.BroadcastReceiver r = Class.forName(cls, true, loader).asSubclass(android.content.BroadcastReceiver.class)
                .getDeclaredConstructor().newInstance();
        r.onReceive(RuntimeEnvironment.getApplication(), intent);
        return "OK\nreceived=" + intent.getAction();
    }

    private static LocalService service(ClassLoader loader, String cls, Intent intent) throws Exception {
        LocalService s = services.get(cls);
        if (s == null) {
            Class<? extends android.app.Service> c = Class.forName(cls, true, loader).asSubclass(android.app.Service.class);
            s = new LocalService(Robolectric.buildService(c, intent));
            services.put(cls, s);
            s.controller.create();
        }
        return s;
    }

    private static String startService(ClassLoader loader, String cls, Intent intent) throws Exception {
        LocalService s = service(loader, cls, intent);
        s.started = true;
        s.controller.get().onStartCommand(intent, 0, ++s.lastStartId);
        return "OK\nstartId=" + s.lastStartId;
    }

    /** A binding: onBind once; the binder stays here and the system server gets a handle on it. */
    private static String bindService(ClassLoader loader, String cls, Intent intent) throws Exception {
        LocalService s = service(loader, cls, intent);
        if (s.binder == null) {
            s.binder = s.controller.get().onBind(intent);
            if (s.binder == null) {
                return "ERR " + cls + ".onBind returned no binder";
            }
            s.handle = nextHandle++;
            handles.put(s.handle, s.binder);
        }
        s.bindCount++;
        String d = s.binder.getInterfaceDescriptor();
        return "OK\nhandle=" + s.handle + "\npid=" + ProcessHandle.current().pid() + "\ndescriptor=" + (d == null ? "" : d);
    }

    /** Main looper. */
    static void unbindLocal(String cls) {
        unbindService(cls);
    }

    private static String unbindService(String cls) {
        LocalService s = services.get(cls);
        if (s == null || s.bindCount == 0) {
            return "ERR " + cls + " is not bound";
        }
        if (--s.bindCount == 0) {
            s.controller.get().onUnbind(new Intent().setClassName(pkg, cls));
            handles.remove(s.handle);
            s.binder = null;
            if (!s.started) {
                services.remove(cls);
                s.controller.destroy();
            }
        }
        return "OK";
    }

    /**
     * A binding from this app's own code to one of its own services: in this process, the
     * object itself (as on a device, where a binder in the caller's process is not proxied).
     * Main looper. False when the class is no service of the app.
     */
    static boolean bindLocal(android.content.ComponentName cn, Intent intent, android.content.ServiceConnection conn) {
        LocalService s;
        android.os.IBinder b;
        try {
            s = service(loader, cn.getClassName(), intent);
            if (s.binder == null) {
                s.binder = s.controller.get().onBind(intent);
                s.handle = nextHandle++;
                if (s.binder != null) {
                    handles.put(s.handle, s.binder);
                }
            }
            s.bindCount++;
            b = s.binder;
        } catch (ClassNotFoundException | ClassCastException e) {
            return false;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        new android.os.Handler(android.os.Looper.getMainLooper()).post(() -> conn.onServiceConnected(cn, b));
        return true;
    }

    /** The activity created, started, resumed, and its window drawn once; the draw's microseconds. */
    private static long launch(String pkg, ClassLoader loader, String cls) throws Exception {
        pauseAndStop();
        Class<? extends Activity> c = Class.forName(cls, true, loader).asSubclass(Activity.class);
        top = Robolectric.buildActivity(c, new Intent(Intent.ACTION_MAIN).setClassName(pkg, cls)).setup();
        topResumed = true;
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

    /** The resumed activity pauses and stops (main looper); the class that did, or "none". */
    private static String pauseAndStop() {
        if (top == null || !topResumed) {
            return "none";
        }
        topResumed = false;
        top.pause().stop();
        return top.get().getClass().getName();
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
