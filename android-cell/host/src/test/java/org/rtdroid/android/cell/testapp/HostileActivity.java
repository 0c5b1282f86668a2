package org.rtdroid.android.cell.testapp;

import android.app.Activity;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.ServiceConnection;
import android.os.Bundle;
import android.os.IBinder;
import android.os.Parcel;
import android.util.Log;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A hostile app: on launch, in its own process, it tries what one app must not do to another
 * and logs each outcome ({@code Hostile: REFUSED|ALLOWED attempt: detail}): list another app's
 * data directory, read another app's process memory, send a broadcast naming another app as its
 * sender (on the system server's socket, as raw bytes), bind another app's service that is not
 * exported. It also binds that app's exported service, which it may, and shows it holds a proxy.
 * It carries a receiver and services too ({@link EchoReceiver}, {@link WorkService},
 * {@link EchoBinderService}): the tests start its process with a broadcast.
 */
public class HostileActivity extends Activity {
    static final String TAG = "Hostile";
    /** The app whose files and processes it attacks (the ConfigurationUI in the tests). */
    static final String VICTIM = "org.rtdroid.cochlear.ui";
    /** The app whose services it binds (the test app, with a service not exported and one exported). */
    static final String SERVICES = "org.rtdroid.celltest";

    @Override
    protected void onCreate(Bundle saved) {
        super.onCreate(saved);
        readOthersData();
        readOthersMemory();
        broadcastAsOther();
        bindNotExported();
        bindExported();
        // and, as an activity waiting for replies does, a receiver registered at run time
        registerReceiver(new android.content.BroadcastReceiver() {
            @Override
            public void onReceive(Context context, Intent intent) {
                Log.i(TAG, "registered receiver got " + intent.getAction() + " in pid " + ProcessHandle.current().pid()
                        + " n=" + intent.getIntExtra("n", -1));
            }
        }, new android.content.IntentFilter(TO_ACTIVITY));
        // a window for UI automation, which reaches this process through the system server
        android.widget.LinearLayout root = new android.widget.LinearLayout(this);
        android.widget.TextView whoami = new android.widget.TextView(this);
        whoami.setTag("whoami");
        whoami.setText(getPackageName() + " pid " + ProcessHandle.current().pid()); // its own package, asked by its code
        android.widget.Button tap = new android.widget.Button(this);
        tap.setTag("tap");
        tap.setText("tap");
        tap.setOnClickListener(v -> whoami.setText("tapped in pid " + ProcessHandle.current().pid()));
        android.widget.Button crash = new android.widget.Button(this);
        crash.setTag("crash");
        crash.setOnClickListener(v -> {
            throw new IllegalStateException("deliberate crash in onClick");
        });
        // noise, which PNG cannot compress: the screenshot crosses the IPC in several chunks
        int[] noise = new int[256 * 256];
        java.util.Random random = new java.util.Random(36);
        for (int i = 0; i < noise.length; i++) {
            noise[i] = 0xff000000 | random.nextInt(0x1000000);
        }
        android.widget.ImageView image = new android.widget.ImageView(this);
        image.setImageBitmap(android.graphics.Bitmap.createBitmap(noise, 256, 256, android.graphics.Bitmap.Config.ARGB_8888));
        root.setOrientation(android.widget.LinearLayout.VERTICAL);
        root.addView(whoami);
        root.addView(tap);
        root.addView(crash);
        root.addView(image);
        setContentView(root);
    }

    static final String TO_ACTIVITY = "org.rtdroid.test.TO_ACTIVITY";

    private static void outcome(boolean refused, String attempt, String detail) {
        Log.w(TAG, (refused ? "REFUSED " : "ALLOWED ") + attempt + ": " + detail);
    }

    /** The victim's data directory: the apps' are siblings, and this process's temp folder is its own cache. */
    private static Path victimData() {
        return Paths.get(System.getProperty("java.io.tmpdir")).getParent().resolveSibling(VICTIM);
    }

    private void readOthersData() {
        Path victim = victimData();
        try (var files = Files.list(victim)) {
            outcome(false, "data", "listed " + victim + ": " + files.count() + " entries");
        } catch (java.io.IOException e) {
            outcome(true, "data", e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    private void readOthersMemory() {
        long pid = -1;
        String target;
        try {
            target = Files.getAttribute(victimData(), "unix:uid").toString(); // its owner: the victim's uid
        } catch (java.io.IOException | RuntimeException e) {
            Log.e(TAG, "NOT TRIED memory: the victim's uid is unknown: " + e);
            return;
        }
        try (var procs = Files.list(Paths.get("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.matches("[0-9]+")) {
                    continue;
                }
                try {
                    String uid = Files.readAllLines(p.resolve("status")).stream().filter(l -> l.startsWith("Uid:"))
                            .map(l -> l.substring(4).trim().split("\\s+")[0]).findFirst().orElse("0");
                    if (uid.equals(target)) {
                        pid = Long.parseLong(name);
                        break;
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    // a process that ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            outcome(true, "memory", "cannot list /proc: " + e.getMessage());
            return;
        }
        if (pid < 0) {
            Log.e(TAG, "NOT TRIED memory: no process of uid " + target + " runs");
            return;
        }
        try (var mem = java.nio.channels.FileChannel.open(Paths.get("/proc/" + pid + "/mem"))) {
            ByteBuffer b = ByteBuffer.allocate(16);
            mem.read(b, 0x400000);
            outcome(false, "memory", "opened /proc/" + pid + "/mem");
        } catch (java.io.IOException e) {
            outcome(true, "memory", "/proc/" + pid + "/mem: " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    private void broadcastAsOther() {
        String socket = System.getProperty("org.rtdroid.app.binder");
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            byte[] req = ("broadcast\naction=org.rtdroid.test.ECHO\npackage=" + VICTIM + "\ncallingPackage=" + VICTIM)
                    .getBytes(StandardCharsets.UTF_8);
            c.write(ByteBuffer.allocate(4 + req.length).order(ByteOrder.LITTLE_ENDIAN).putInt(req.length).put(req).flip());
            ByteBuffer n = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (n.hasRemaining() && c.read(n) >= 0) {
                // the reply's length
            }
            ByteBuffer body = ByteBuffer.allocate(n.flip().getInt());
            while (body.hasRemaining() && c.read(body) >= 0) {
                // the reply
            }
            String reply = new String(body.array(), StandardCharsets.UTF_8).replace('\n', ' ');
            outcome(reply.startsWith("ERR"), "broadcast-as-other", reply);
        } catch (java.io.IOException | RuntimeException e) {
            outcome(true, "broadcast-as-other", e.toString());
        }
    }

    private void bindNotExported() {
        ServiceConnection conn = new ServiceConnection() {
            @Override
            public void onServiceConnected(ComponentName name, IBinder service) {
                outcome(false, "bind-not-exported", "connected to " + name);
            }

            @Override
            public void onServiceDisconnected(ComponentName name) {
            }
        };
        try {
            boolean bound = bindService(new Intent().setClassName(SERVICES, TestService.class.getName()), conn,
                    Context.BIND_AUTO_CREATE);
            if (!bound) {
                outcome(true, "bind-not-exported", "bindService returned false");
            }
        } catch (SecurityException e) {
            outcome(true, "bind-not-exported", "SecurityException " + e.getMessage());
        }
    }

    private void bindExported() {
        bindService(new Intent().setClassName(SERVICES, EchoBinderService.class.getName()), new ServiceConnection() {
            @Override
            public void onServiceConnected(ComponentName name, IBinder service) {
                Parcel data = Parcel.obtain();
                Parcel reply = Parcel.obtain();
                try {
                    data.writeInterfaceToken(EchoBinderService.DESCRIPTOR);
                    data.writeString("hi");
                    service.transact(EchoBinderService.ECHO, data, reply, 0);
                    reply.readException();
                    Log.i(TAG, "bound " + name.getShortClassName() + " through " + service + " (the service's object: "
                            + (service.queryLocalInterface(EchoBinderService.DESCRIPTOR) != null) + "), in pid "
                            + ProcessHandle.current().pid() + ": " + reply.readString());
                } catch (android.os.RemoteException | RuntimeException e) {
                    Log.e(TAG, "the exported service's binder failed: " + e);
                } finally {
                    data.recycle();
                    reply.recycle();
                }
            }

            @Override
            public void onServiceDisconnected(ComponentName name) {
            }
        }, Context.BIND_AUTO_CREATE);
    }
}
