package org.rtdroid.android.cell;

import org.rtdroid.android.cell.binder.BinderClient;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.IntentWire;
import org.rtdroid.android.cell.os.ProxyBinder;

import android.content.ComponentName;
import android.content.Intent;
import android.content.ServiceConnection;

import java.io.IOException;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;

import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;
import org.robolectric.shadows.ShadowContextImpl;

/**
 * An app process's calls out (AOSP's {@code ActivityManager.getService()} proxy): startService,
 * sendBroadcast and bindService of the app's code go to the system server over its IPC, where the
 * kernel's uid says which app calls; the app says nothing of who it is. A binding's binder is a
 * {@link ProxyBinder} on a connection of the binding's own (its transactions run where the service
 * runs; closing it ends the binding), except a binding to one of the app's own services, which
 * is in this process and is the object itself. Refusals come back as Android throws them
 * ({@code SecurityException}). Before the process attached, calls go to Robolectric (the
 * framework's own start-up).
 */
@Implements(className = "android.app.ContextImpl", isInAndroidSdk = false)
public class AppProcessContextShadow extends ShadowContextImpl {
    private static final String TAG = "ActivityManager";
    private static volatile Path socket;
    private static BinderClient out;
    private static final Map<ServiceConnection, Object> bindings = new IdentityHashMap<>();

    static synchronized void connect(Path binderSocket) throws IOException {
        socket = binderSocket;
        out = BinderClient.connect(binderSocket);
    }

    @org.robolectric.annotation.RealObject
    private android.content.Context realContext;

    /**
     * As in the system server ({@link CellContextImplShadow}): the app's code asking gets its
     * package (the proxy checks it against the caller the kernel named), the framework asking for
     * itself gets Robolectric's.
     */
    @Implementation
    protected String getPackageName() {
        String pkg = org.rtdroid.android.cell.pm.Apps.askingPackage();
        if (pkg != null) {
            return pkg;
        }
        return org.robolectric.util.reflector.Reflector.reflector(CellContextImplShadow.ContextImplReflector.class, realContext)
                .getPackageName();
    }

    private static synchronized String call(String request) {
        try {
            return out.transact(request);
        } catch (IOException e) {
            // as a DeadObjectException from the system server: the process cannot go on
            throw new IllegalStateException("the system server is gone: " + e.getMessage(), e);
        }
    }

    /** An ERR reply as the exception Android throws for it; null for OK. */
    private static String refusal(String reply) {
        if (reply.startsWith("OK")) {
            return null;
        }
        String why = reply.startsWith("ERR ") ? reply.substring(4) : reply;
        if (why.startsWith("Not allowed") || why.startsWith("Permission Denial")) {
            throw new SecurityException(why);
        }
        return why;
    }

    /** The receivers this process registered, by its number for each (the system server's id). */
    private static final Map<Long, android.content.BroadcastReceiver> receivers = new java.util.concurrent.ConcurrentHashMap<>();
    private static final Map<android.content.BroadcastReceiver, Long> receiverIds = new IdentityHashMap<>();
    private static long nextReceiver = 1;

    /** The receiver registered as {@code id}, or null. */
    static android.content.BroadcastReceiver registered(long id) {
        return receivers.get(id);
    }

    /**
     * A receiver registered at run time: kept here, and its actions and priority told to the
     * system server, which sends this process the broadcasts that match (delivered on the main
     * looper). A filter's categories and data are not carried.
     */
    private Intent register(android.content.BroadcastReceiver receiver, android.content.IntentFilter filter) {
        if (receiver == null) {
            return null; // a sticky broadcast's query: none are kept
        }
        long id;
        synchronized (AppProcessContextShadow.class) {
            Long known = receiverIds.get(receiver);
            id = known != null ? known : nextReceiver++;
            receiverIds.put(receiver, id);
        }
        receivers.put(id, receiver);
        StringBuilder actions = new StringBuilder();
        for (int i = 0; i < filter.countActions(); i++) {
            actions.append(i == 0 ? "" : ",").append(java.net.URLEncoder.encode(filter.getAction(i),
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        String why = refusal(call("registerReceiver\nid=" + id + "\nactions=" + actions + "\npriority=" + filter.getPriority()));
        if (why != null) {
            CellLog.w(TAG, "receiver " + id + " not registered: " + why);
        }
        return null;
    }

    @Implementation
    @Override
    protected Intent registerReceiver(android.content.BroadcastReceiver receiver, android.content.IntentFilter filter) {
        return socket == null ? super.registerReceiver(receiver, filter) : register(receiver, filter);
    }

    @Implementation
    @Override
    protected Intent registerReceiver(android.content.BroadcastReceiver receiver, android.content.IntentFilter filter, int flags) {
        return socket == null ? super.registerReceiver(receiver, filter, flags) : register(receiver, filter);
    }

    @Implementation
    @Override
    protected Intent registerReceiver(android.content.BroadcastReceiver receiver, android.content.IntentFilter filter,
            String permission, android.os.Handler scheduler) {
        return socket == null ? super.registerReceiver(receiver, filter, permission, scheduler) : register(receiver, filter);
    }

    @Implementation
    @Override
    protected Intent registerReceiver(android.content.BroadcastReceiver receiver, android.content.IntentFilter filter,
            String permission, android.os.Handler scheduler, int flags) {
        return socket == null ? super.registerReceiver(receiver, filter, permission, scheduler, flags)
                : register(receiver, filter);
    }

    @Implementation
    @Override
    protected void unregisterReceiver(android.content.BroadcastReceiver receiver) {
        if (socket == null) {
            super.unregisterReceiver(receiver);
            return;
        }
        Long id;
        synchronized (AppProcessContextShadow.class) {
            id = receiverIds.remove(receiver);
        }
        if (id == null) {
            throw new IllegalArgumentException("Receiver not registered: " + receiver);
        }
        receivers.remove(id);
        call("unregisterReceiver\nid=" + id);
    }

    @Implementation
    @Override
    protected ComponentName startService(Intent service) {
        if (socket == null) {
            return super.startService(service);
        }
        String reply = call("startService\n" + IntentWire.encode(service));
        String why = refusal(reply);
        if (why != null) {
            CellLog.w(TAG, "Unable to start service " + service + ": " + why);
            return null;
        }
        return ComponentName.unflattenFromString(IntentWire.fields(reply.split("\n"), 1).get("component"));
    }

    @Implementation
    @Override
    protected void sendBroadcast(Intent intent) {
        if (socket == null) {
            super.sendBroadcast(intent);
            return;
        }
        String why = refusal(call("broadcast\n" + IntentWire.encode(intent)));
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }

    @Implementation
    @Override
    protected void sendBroadcast(Intent intent, String receiverPermission) {
        if (socket == null) {
            super.sendBroadcast(intent, receiverPermission);
            return;
        }
        sendBroadcast(intent);
    }

    @Implementation
    @Override
    protected boolean bindService(Intent service, ServiceConnection conn, int flags) {
        if (socket == null) {
            return super.bindService(service, conn, flags);
        }
        ComponentName cn = service.getComponent();
        if (cn != null && cn.getPackageName().equals(AppProcessHost.pkg)) {
            synchronized (AppProcessContextShadow.class) {
                bindings.put(conn, cn.getClassName());
            }
            return AppProcessHost.bindLocal(cn, service, conn);
        }
        BinderClient binding;
        String reply;
        try {
            binding = BinderClient.connect(socket);
            reply = binding.transact("bindService\n" + IntentWire.encode(service));
        } catch (IOException e) {
            throw new IllegalStateException("the system server is gone: " + e.getMessage(), e);
        }
        String why;
        try {
            why = refusal(reply);
        } catch (SecurityException e) {
            close(binding);
            throw e;
        }
        if (why != null) {
            close(binding);
            CellLog.w(TAG, "Unable to bind service " + service + ": " + why);
            return false;
        }
        Map<String, String> f = IntentWire.fields(reply.split("\n"), 1);
        ProxyBinder proxy = new ProxyBinder(Long.parseLong(f.get("handle")), f.get("descriptor")) {
            @Override
            protected String call(String request) throws IOException {
                synchronized (binding) {
                    return binding.transact(request);
                }
            }
        };
        synchronized (AppProcessContextShadow.class) {
            bindings.put(conn, new Object[] {binding, proxy});
        }
        ComponentName bound = ComponentName.unflattenFromString(f.get("component"));
        new android.os.Handler(android.os.Looper.getMainLooper()).post(() -> conn.onServiceConnected(bound, proxy));
        return true;
    }

    @Implementation
    @Override
    protected void unbindService(ServiceConnection conn) {
        if (socket == null) {
            super.unbindService(conn);
            return;
        }
        Object b;
        synchronized (AppProcessContextShadow.class) {
            b = bindings.remove(conn);
        }
        if (b == null) {
            throw new IllegalArgumentException("Service not registered: " + conn);
        }
        if (b instanceof String cls) {
            AppProcessHost.unbindLocal(cls);
        } else {
            Object[] remote = (Object[]) b;
            ((ProxyBinder) remote[1]).died();
            close((BinderClient) remote[0]); // the system server ends the binding with the connection
        }
    }

    private static void close(BinderClient c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
