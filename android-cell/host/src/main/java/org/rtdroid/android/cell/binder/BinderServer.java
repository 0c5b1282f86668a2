package org.rtdroid.android.cell.binder;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.IntentWire;
import org.rtdroid.android.cell.os.Posix;
import org.rtdroid.android.cell.pm.InstalledApp;

import android.content.Intent;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.rtdroid.android.proxy.ProxyContract;

/**
 * The system server's Binder-like endpoint: a Unix domain socket where a process calls the system
 * server and the receiving side learns who calls from the kernel ({@code SO_PEERCRED}: the pid, uid
 * and gid of the connecting process), never from the caller's message. The uid names the app (its
 * Linux uid from the package manager); permissions are checked against that app's grants.
 *
 * <p>A transaction is a little-endian 32-bit length and that many bytes of UTF-8: the method on
 * the first line, then {@code key=value} lines. The reply has the same frame: {@code OK} and
 * {@code key=value} lines, or {@code ERR reason}. Methods: {@code whoami}; {@code broadcast}
 * (an Intent's fields as {@code IntentWire} writes them: {@code action}, optional {@code package}
 * (the receiver's), {@code extra.NAME} and typed extras, and {@code priority}, the sender priority
 * 0..99); {@code send} to the RT cell through the proxy ({@code channel}, {@code action}, optional
 * {@code payload} (hex), {@code priority}, {@code correlationId}); {@code startService} and
 * {@code bindService} (an Intent's fields; a binding answers a handle on the binder, which only
 * this connection may use), {@code transact} ({@code handle}, {@code code}, {@code data}: a
 * marshalled Parcel in hex; it runs where the service runs) and {@code unbindService}
 * ({@code handle}). An app process also attaches here ({@code attachApplication}). A field naming the caller ({@code sender},
 * {@code callingPackage}, {@code uid}, {@code pid}) is refused as a spoof; every refusal is
 * counted by kind ({@code dumpsys binder}).
 */
public final class BinderServer {
    static final String TAG = "Binder";
    static final int MAX_TRANSACTION_BYTES = 64 * 1024;
    private static final java.util.Set<String> IDENTITY_FIELDS = java.util.Set.of("sender", "callingPackage",
            "callingUid", "uid", "pid");
    private final CellActivityManager am;
    private final Path socket;
    private final int listenFd;
    private final int systemUid = Posix.geteuid();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong unknownCaller = new AtomicLong();
    private final AtomicLong spoofed = new AtomicLong();
    private final AtomicLong forged = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private volatile boolean running = true;

    private BinderServer(CellActivityManager am, Path socket, int listenFd) {
        this.am = am;
        this.socket = socket;
        this.listenFd = listenFd;
    }

    /** Listens at {@code socket}, which every local uid may connect to (the kernel says who did). */
    public static BinderServer start(CellActivityManager am, Path socket) throws IOException {
        Files.deleteIfExists(socket);
        int fd = UnixSocket.listen(socket, 64);
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        BinderServer s = new BinderServer(am, socket, fd);
        Thread t = new Thread(s::acceptLoop, "binder");
        t.setDaemon(true);
        t.start();
        CellLog.i(TAG, "system server IPC on " + socket + " (callers identified by SO_PEERCRED)");
        return s;
    }

    public Path socket() {
        return socket;
    }

    public void stop() {
        running = false;
        UnixSocket.shutdown(listenFd);
        UnixSocket.close(listenFd);
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // the cell's temp directory goes with it
        }
    }

    /** Lines for {@code dumpsys binder}. */
    public String dump() {
        return "BINDER (the system server's IPC, " + socket + ")\n"
                + "  transactions: " + transactions.get() + "\n"
                + "  refused, caller is no installed app: " + unknownCaller.get() + "\n"
                + "  refused, a spoofed identity field: " + spoofed.get() + "\n"
                + "  refused, forged or malformed arguments: " + forged.get() + "\n"
                + "  refused, permission denied: " + denied.get() + "\n";
    }

    private void acceptLoop() {
        while (running) {
            int fd = UnixSocket.accept(listenFd);
            if (fd < 0) {
                if (running) {
                    CellLog.w(TAG, "accept failed; the endpoint stops");
                }
                return;
            }
            Thread t = new Thread(() -> serve(fd), "binder-" + fd);
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(int fd) {
        boolean handedOver = false;
        ClientBindings bindings = null;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            UnixSocket.Peer peer = UnixSocket.peer(fd);
            MemorySegment header = arena.allocate(4);
            MemorySegment body = arena.allocate(MAX_TRANSACTION_BYTES);
            bindings = new ClientBindings();
            while (running) {
                if (!readFully(fd, header, state)) {
                    return;
                }
                int len = header.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
                if (len < 0 || len > MAX_TRANSACTION_BYTES) {
                    forged.incrementAndGet();
                    reply(fd, arena, state, "ERR transaction of " + len + " bytes (at most " + MAX_TRANSACTION_BYTES + ")");
                    return;
                }
                MemorySegment b = body.asSlice(0, len);
                if (!readFully(fd, b, state)) {
                    return;
                }
                String request = new String(b.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                transactions.incrementAndGet();
                if (request.strip().equals("attachApplication")) {
                    Connection connection = new Connection(fd);
                    String refused;
                    synchronized (connection) { // the system server's first call waits for this reply
                        refused = attach(peer, connection);
                        reply(fd, arena, state, refused == null ? "OK\nattached=" + callerPackage(peer) : refused);
                    }
                    if (refused != null) {
                        connection.arena.close(); // the connection stays the caller's, as any other
                    } else {
                        handedOver = true; // the connection is the app process's now: the system server calls it
                        return;
                    }
                    continue;
                }
                reply(fd, arena, state, transact(peer, request, bindings));
            }
        } catch (IOException e) {
            // the caller went away
        } finally {
            if (bindings != null) {
                bindings.unbindAll(am); // a client's bindings end with its connection (its process)
            }
            if (!handedOver) {
                UnixSocket.close(fd);
            }
        }
    }

    /**
     * An app process attaches ({@code attachApplication}, no fields): the kernel's uid must be an
     * app that runs in a process of its own, and the kernel's pid the process the system server
     * started for it. Null when attached, else the refusal.
     */
    private String attach(UnixSocket.Peer peer, Connection connection) {
        String pkg = callerPackage(peer);
        if (pkg == null || pkg.equals("android")) {
            return refuse(unknownCaller, peer, "uid " + peer.uid() + " (pid " + peer.pid() + ") is no app to attach");
        }
        InstalledApp app = am.packages.get(pkg);
        String why = app == null ? pkg + " is not installed" : am.processes.attach(app, peer.pid(), connection);
        return why == null ? null : refuse(spoofed, peer, why);
    }

    /** An attached app process's connection, as the system server's {@code ApplicationThread}. */
    private static final class Connection implements org.rtdroid.android.cell.am.ApplicationThread {
        private final int fd;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
        private final MemorySegment header = arena.allocate(4);
        private final MemorySegment body = arena.allocate(MAX_TRANSACTION_BYTES);
        private boolean closed;

        Connection(int fd) {
            this.fd = fd;
        }

        @Override
        public synchronized String call(String request) throws IOException {
            if (closed) {
                throw new IOException("the app process's connection is closed");
            }
            try (Arena frame = Arena.ofConfined()) {
                reply(fd, frame, state, request);
            }
            if (!readFully(fd, header, state)) {
                throw new IOException("the app process closed its connection");
            }
            int len = header.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
            if (len < 0 || len > MAX_TRANSACTION_BYTES) {
                throw new IOException("the app process replied a frame of " + len + " bytes");
            }
            MemorySegment b = body.asSlice(0, len);
            if (!readFully(fd, b, state)) {
                throw new IOException("the app process closed its connection inside a reply");
            }
            return new String(b.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            UnixSocket.shutdown(fd); // wakes a call blocked in read; the fd goes with the next call's end
            synchronized (this) {
                if (!closed) {
                    closed = true;
                    UnixSocket.close(fd);
                    arena.close();
                }
            }
        }
    }

    private static boolean readFully(int fd, MemorySegment seg, MemorySegment state) throws IOException {
        long off = 0;
        while (off < seg.byteSize()) {
            int n = UnixSocket.read(fd, seg.asSlice(off), state);
            if (n == 0) {
                return false;
            }
            off += n;
        }
        return true;
    }

    private static void reply(int fd, Arena arena, MemorySegment state, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        byte[] frame = ByteBuffer.allocate(4 + b.length).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length).put(b).array();
        UnixSocket.writeFully(fd, arena.allocateFrom(ValueLayout.JAVA_BYTE, frame), state);
    }

    /**
     * The binders a client connection bound ({@code bindService}): its handles name them, and only
     * that connection may transact on them or unbind them.
     */
    private static final class ClientBindings {
        private final Map<Long, android.content.ServiceConnection> connections = new java.util.HashMap<>();
        private final Map<Long, android.os.IBinder> binders = new java.util.HashMap<>();
        private long next = 1;

        synchronized long add(android.content.ServiceConnection c, android.os.IBinder b) {
            long h = next++;
            connections.put(h, c);
            binders.put(h, b);
            return h;
        }

        synchronized android.os.IBinder binder(long h) {
            return binders.get(h);
        }

        synchronized android.content.ServiceConnection remove(long h) {
            binders.remove(h);
            return connections.remove(h);
        }

        void unbindAll(CellActivityManager am) {
            java.util.List<android.content.ServiceConnection> all;
            synchronized (this) {
                all = new java.util.ArrayList<>(connections.values());
                connections.clear();
                binders.clear();
            }
            for (android.content.ServiceConnection c : all) {
                try {
                    am.services.unbindService(null, c);
                } catch (RuntimeException ignored) {
                    // already gone
                }
            }
        }
    }

    /** One transaction from the process the kernel names; the reply's text. */
    String transact(UnixSocket.Peer peer, String request) {
        return transact(peer, request, new ClientBindings());
    }

    String transact(UnixSocket.Peer peer, String request, ClientBindings bindings) {
        String[] lines = request.split("\n");
        String method = lines[0].trim();
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            if (lines[i].isBlank()) {
                continue;
            }
            if (eq <= 0) {
                return refuse(forged, peer, "malformed line '" + lines[i] + "' (key=value)");
            }
            args.put(lines[i].substring(0, eq), lines[i].substring(eq + 1));
        }
        for (String k : args.keySet()) {
            if (IDENTITY_FIELDS.contains(k)) {
                return refuse(spoofed, peer, "field '" + k + "' refused: who calls is the kernel's to say (uid "
                        + peer.uid() + ", pid " + peer.pid() + ")");
            }
        }
        String pkg = callerPackage(peer);
        if (pkg == null) {
            return refuse(unknownCaller, peer, "uid " + peer.uid() + " (pid " + peer.pid() + ") is no installed app");
        }
        switch (method) {
            case "whoami":
                return "OK\nuid=" + peer.uid() + "\npid=" + peer.pid() + "\ngid=" + peer.gid() + "\npackage=" + pkg;
            case "broadcast":
                return broadcast(peer, pkg, args);
            case "send":
                return send(peer, pkg, args);
            case "startService":
                return startService(peer, pkg, args);
            case "bindService":
                return bindService(peer, pkg, args, bindings);
            case "transact":
                return transactOn(peer, args, bindings);
            case "unbindService":
                return unbindService(peer, args, bindings);
            case "registerReceiver", "unregisterReceiver":
                return registerReceiver(peer, pkg, method, args);
            default:
                return refuse(forged, peer, "no method '" + method
                        + "' (whoami, broadcast, send, startService, bindService, transact, unbindService, registerReceiver, unregisterReceiver)");
        }
    }

    private String broadcast(UnixSocket.Peer peer, String pkg, Map<String, String> args) {
        String action = args.get("action");
        if (action == null || action.isEmpty() || action.length() > 255) {
            return refuse(forged, peer, "broadcast needs action=NAME (1..255 characters)");
        }
        Map<String, String> fields = new LinkedHashMap<>(args);
        String p = fields.remove("priority");
        int priority = 0;
        if (p != null) {
            try {
                priority = Integer.parseInt(p);
            } catch (NumberFormatException x) {
                priority = -1;
            }
            if (priority < 0 || priority > 99) {
                return refuse(forged, peer, "priority '" + p + "' is not 0..99");
            }
        }
        Intent intent;
        try {
            intent = IntentWire.decode(fields);
        } catch (IllegalArgumentException e) {
            return refuse(forged, peer, "broadcast " + e.getMessage());
        }
        if (p != null) {
            intent.putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, priority);
        }
        priority = intent.getIntExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 0);
        if (priority < 0 || priority > 99) {
            return refuse(forged, peer, "priority '" + priority + "' is not 0..99");
        }
        try {
            am.broadcasts.sendBroadcastAs("android".equals(pkg) ? null : pkg, intent);
        } catch (SecurityException e) {
            return refuse(denied, peer, e.getMessage());
        }
        return "OK\nqueued=" + intent.getAction() + "\npriority=" + priority;
    }

    /** A start of a service as the app the kernel's uid names (an app process's startService). */
    private String startService(UnixSocket.Peer peer, String pkg, Map<String, String> args) {
        Intent intent;
        try {
            intent = IntentWire.decode(args);
        } catch (IllegalArgumentException e) {
            return refuse(forged, peer, "startService " + e.getMessage());
        }
        android.content.ComponentName cn;
        try {
            cn = am.services.startServiceAs("android".equals(pkg) ? null : pkg, intent);
        } catch (SecurityException e) {
            return refuse(denied, peer, e.getMessage());
        } catch (IllegalArgumentException e) {
            return refuse(forged, peer, e.getMessage());
        }
        return cn == null ? "ERR Unable to start service " + intent + ": not found" : "OK\ncomponent=" + cn.flattenToString();
    }

    static final long BIND_TIMEOUT_SECONDS = 120; // the service's process may have to start first

    /**
     * A binding as the app the kernel's uid names: the service's permission and export are
     * checked against that app; the caller gets a handle on the binder, never the object (its
     * transactions run where the service runs).
     */
    private String bindService(UnixSocket.Peer peer, String pkg, Map<String, String> args, ClientBindings mine) {
        Intent intent;
        try {
            intent = IntentWire.decode(args);
        } catch (IllegalArgumentException e) {
            return refuse(forged, peer, "bindService " + e.getMessage());
        }
        java.util.concurrent.CompletableFuture<Object[]> connected = new java.util.concurrent.CompletableFuture<>();
        android.content.ServiceConnection conn = new android.content.ServiceConnection() {
            @Override
            public void onServiceConnected(android.content.ComponentName name, android.os.IBinder service) {
                connected.complete(new Object[] {name, service});
            }

            @Override
            public void onServiceDisconnected(android.content.ComponentName name) {
            }
        };
        try {
            if (!am.services.bindServiceAs("android".equals(pkg) ? null : pkg, intent, conn,
                    android.content.Context.BIND_AUTO_CREATE)) {
                return "ERR Unable to bind service " + intent + ": not found";
            }
        } catch (SecurityException e) {
            return refuse(denied, peer, e.getMessage());
        } catch (IllegalArgumentException e) {
            return refuse(forged, peer, e.getMessage());
        }
        Object[] r;
        try {
            r = connected.get(BIND_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            am.services.unbindService(null, conn);
            return "ERR " + intent + " did not connect within " + BIND_TIMEOUT_SECONDS + " s";
        }
        android.os.IBinder binder = (android.os.IBinder) r[1];
        if (binder == null) {
            am.services.unbindService(null, conn);
            return "ERR " + intent + ": the service returned no binder";
        }
        String descriptor = null;
        try {
            descriptor = binder.getInterfaceDescriptor();
        } catch (android.os.RemoteException | RuntimeException ignored) {
            // a binder without a descriptor
        }
        long h = mine.add(conn, binder);
        return "OK\nhandle=" + h + "\ncomponent=" + ((android.content.ComponentName) r[0]).flattenToString()
                + "\ndescriptor=" + (descriptor == null ? "" : descriptor);
    }

    /**
     * A receiver registered at run time by an app process ({@code id}, the process's own number
     * for it; {@code actions}, comma-separated; {@code priority}): matching broadcasts go to that
     * process. Only the process the system server started for the kernel's uid's app may.
     */
    private String registerReceiver(UnixSocket.Peer peer, String pkg, String method, Map<String, String> args) {
        InstalledApp app = am.packages.get(pkg);
        if (app == null || app.system || am.processes.runningPid(app) != peer.pid()) {
            return refuse(spoofed, peer, "pid " + peer.pid() + " is not " + pkg + "'s app process: only it registers its receivers");
        }
        long id;
        try {
            id = Long.parseLong(args.getOrDefault("id", ""));
        } catch (NumberFormatException e) {
            id = -1;
        }
        if (id <= 0) {
            return refuse(forged, peer, method + " needs id=N (a positive number)");
        }
        if (method.equals("unregisterReceiver")) {
            am.broadcasts.unregisterRemote(app, id);
            return "OK";
        }
        android.content.IntentFilter filter = new android.content.IntentFilter();
        for (String a : args.getOrDefault("actions", "").split(",")) {
            String action = java.net.URLDecoder.decode(a, StandardCharsets.UTF_8);
            if (action.isEmpty() || action.length() > 255) {
                return refuse(forged, peer, "registerReceiver needs actions=A[,B...] (1..255 characters each)");
            }
            filter.addAction(action);
        }
        try {
            filter.setPriority(Integer.parseInt(args.getOrDefault("priority", "0")));
        } catch (NumberFormatException e) {
            return refuse(forged, peer, "priority '" + args.get("priority") + "' is not a number");
        }
        am.broadcasts.registerRemote(app, id, filter);
        return "OK\nregistered=" + id;
    }

    private static long handleOf(Map<String, String> args) {
        try {
            return Long.parseLong(args.getOrDefault("handle", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A transaction on a binder this connection bound: it runs where the service runs. */
    private String transactOn(UnixSocket.Peer peer, Map<String, String> args, ClientBindings mine) {
        android.os.IBinder binder = mine.binder(handleOf(args));
        if (binder == null) {
            return refuse(forged, peer, "no binder " + args.get("handle") + " bound by this connection");
        }
        if (!args.getOrDefault("code", "").matches("-?[0-9]{1,10}") || !args.getOrDefault("data", "").matches("([0-9a-fA-F]{2})*")
                || !args.getOrDefault("flags", "0").matches("[0-9]{1,10}")) {
            return refuse(forged, peer, "transact needs handle=H code=N data=HEX [flags=F]");
        }
        return org.rtdroid.android.cell.os.ProxyBinder.serve(binder, args);
    }

    private String unbindService(UnixSocket.Peer peer, Map<String, String> args, ClientBindings mine) {
        android.content.ServiceConnection c = mine.remove(handleOf(args));
        if (c == null) {
            return refuse(forged, peer, "no binder " + args.get("handle") + " bound by this connection");
        }
        am.services.unbindService(null, c);
        return "OK";
    }

    /**
     * A send to the RT cell: a start of the proxy service (the only road to the region) as the
     * app the kernel's uid names, so the proxy's permission (CROSS_CONTEXT) is checked against
     * that app's grants and the proxy takes the sender from the system server, as from Binder.
     * The proxy then checks the channel against the app's manifest; its refusals (undeclared
     * channel, RT cell not ready, ring full) reach the app as its REFUSED broadcast.
     */
    private String send(UnixSocket.Peer peer, String pkg, Map<String, String> args) {
        String channel = args.get("channel");
        String action = args.get("action");
        if (channel == null || action == null) {
            return refuse(forged, peer, "send needs channel=NAME and action=NAME");
        }
        Intent intent = new Intent(ProxyContract.ACTION_SEND).setClassName(ProxyContract.PROXY_PACKAGE,
                ProxyContract.PROXY_SERVICE);
        intent.putExtra(ProxyContract.EXTRA_CHANNEL, channel).putExtra(ProxyContract.EXTRA_ACTION, action);
        for (Map.Entry<String, String> e : args.entrySet()) {
            String k = e.getKey();
            try {
                switch (k) {
                    case "channel", "action" -> {
                    }
                    case "payload" -> intent.putExtra(ProxyContract.EXTRA_PAYLOAD, java.util.HexFormat.of().parseHex(e.getValue()));
                    case "priority" -> intent.putExtra(ProxyContract.EXTRA_PRIORITY, Integer.parseInt(e.getValue()));
                    case "correlationId" -> intent.putExtra(ProxyContract.EXTRA_CORRELATION_ID, Long.parseLong(e.getValue()));
                    default -> {
                        return refuse(forged, peer, "send takes no field '" + k + "'");
                    }
                }
            } catch (IllegalArgumentException x) {
                return refuse(forged, peer, "send field " + k + "='" + e.getValue() + "' is malformed (" + x.getMessage() + ")");
            }
        }
        try {
            if (am.services.startServiceAs("android".equals(pkg) ? null : pkg, intent) == null) {
                return refuse(forged, peer, "the proxy service is not installed");
            }
        } catch (SecurityException e) {
            return refuse(denied, peer, e.getMessage());
        }
        return "OK\nhandedToProxy=" + channel;
    }

    /** The package of the calling uid: an installed app's, "android" for the system server's own. */
    private String callerPackage(UnixSocket.Peer peer) {
        if (peer.uid() == systemUid) {
            return "android";
        }
        for (InstalledApp app : am.packages.installed()) {
            if (app.uid == peer.uid() && !app.system) {
                return app.packageName;
            }
        }
        return null;
    }

    private static String refuse(AtomicLong counter, UnixSocket.Peer peer, String why) {
        counter.incrementAndGet();
        CellLog.w(TAG, "refused a transaction from uid " + peer.uid() + " pid " + peer.pid() + ": " + why);
        return "ERR " + why;
    }
}
