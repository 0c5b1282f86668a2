package org.rtdroid.android.proxy;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.os.Bundle;
import android.os.Handler;
import android.os.HandlerThread;
import android.os.Looper;
import android.util.Log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * The proxy's logic. Threads: the proxy's own looper thread "rts-proxy-main" (on a device the
 * proxy is a separate process with its own main thread; in the cell it must not queue behind the
 * apps' UI work on the shared main looper) runs sends and delivery scheduling; the {@link RtLink}
 * thread owns the consumer side of the region and hands decoded intents over through
 * {@link #enqueueFromRt}; the framework's main looper runs the apps' receivers and keeps the map
 * of which app declares which channel (it reads the PackageManager).
 *
 * <p>Delivery follows Kalkov et al.'s predictable broadcasting rather than Android's FIFO
 * broadcast queue: pending intents from the RT cell wait in a priority queue (sender priority,
 * then arrival), one intent is delivered to every app that declares its channel before the next
 * is taken, so a high-priority status never waits behind a burst of low-priority ones.
 */
public final class ProxyCore {
    public static final String TAG = "RTsProxy";
    /** Bound of intents waiting for delivery; when full the lowest-priority one is dropped. */
    public static final int MAX_PENDING_DELIVERIES = 256;
    /** Bound of requests awaiting a reply (round-trip bookkeeping). */
    public static final int MAX_OUTSTANDING = 1024;
    /** -Dorg.rtdroid.proxy.trace=true: log each hop's time (diagnosis; off by default). */
    static final boolean TRACE = Boolean.getBoolean("org.rtdroid.proxy.trace");

    private static volatile ProxyCore instance;

    private final Context context;
    private final Handler main;
    private final HandlerThread thread;
    private final Handler handler;
    private final RtLink link;
    private final Frame txFrame = new Frame();
    private final byte[] txBuffer = new byte[4096];
    private long nextWireId = 1;
    private long arrivals;

    private final PriorityQueue<Inbound> pending = new PriorityQueue<>();
    private boolean delivering;
    private boolean drainPosted;
    private volatile Map<String, List<String>> declaringApps = new HashMap<>(); // channel -> packages
    private final Map<Long, Outstanding> outstanding = new LinkedHashMap<Long, Outstanding>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Outstanding> eldest) {
            return size() > MAX_OUTSTANDING;
        }
    };

    final ProxyStats stats = new ProxyStats();
    final LatencyLog latency = new LatencyLog(8192);

    private final BroadcastReceiver packageChanges = new BroadcastReceiver() {
        @Override
        public void onReceive(Context c, Intent intent) {
            refreshDeclarations();
        }
    };

    private ProxyCore(Context context, String regionPath) {
        this.context = context.getApplicationContext() != null ? context.getApplicationContext() : context;
        this.main = new Handler(Looper.getMainLooper());
        this.thread = new HandlerThread("rts-proxy-main", android.os.Process.THREAD_PRIORITY_FOREGROUND);
        this.thread.start();
        this.handler = new Handler(thread.getLooper());
        this.link = new RtLink(regionPath, this);
    }

    /** Starts the proxy once per process (idempotent). */
    public static synchronized ProxyCore start(Context context) {
        if (instance == null) {
            String region = System.getProperty(ProxyContract.META_REGION);
            if (region == null) {
                region = regionFromManifest(context);
            }
            ProxyCore core = new ProxyCore(context, region);
            IntentFilter f = new IntentFilter();
            f.addAction(Intent.ACTION_PACKAGE_ADDED);
            f.addAction(Intent.ACTION_PACKAGE_REMOVED);
            f.addAction(Intent.ACTION_PACKAGE_REPLACED);
            f.addDataScheme("package");
            core.context.registerReceiver(core.packageChanges, f);
            core.refreshDeclarations();
            core.link.start();
            instance = core;
            Log.i(TAG, "proxy started, region " + region);
        }
        return instance;
    }

    public static synchronized void stop() {
        ProxyCore core = instance;
        instance = null;
        if (core != null) {
            core.link.close();
            core.thread.quitSafely();
            try {
                core.context.unregisterReceiver(core.packageChanges);
            } catch (RuntimeException ignored) {
                // already gone with the context
            }
            Log.i(TAG, "proxy stopped");
        }
    }

    /** The running proxy, or null. */
    public static ProxyCore instance() {
        return instance;
    }

    private static String regionFromManifest(Context context) {
        try {
            ApplicationInfo ai = context.getPackageManager().getApplicationInfo(context.getPackageName(),
                    PackageManager.GET_META_DATA);
            if (ai.metaData != null && ai.metaData.getString(ProxyContract.META_REGION) != null) {
                return ai.metaData.getString(ProxyContract.META_REGION);
            }
        } catch (PackageManager.NameNotFoundException ignored) {
            // fall through to the default
        }
        return "/dev/shm/rtdroid-region";
    }

    /** The proxy's own looper: the cell delivers RTsProxyService's start commands here. */
    public Handler handler() {
        return handler;
    }

    // ------------------------------------------------------------------ Android -> RT (proxy thread)

    /** Handles one SEND intent; on refusal the sender gets {@link ProxyContract#ACTION_REFUSED}. */
    void send(Intent intent) {
        if (Looper.myLooper() != thread.getLooper()) {
            handler.post(() -> send(intent));
            return;
        }
        String sender = intent.getStringExtra(ProxyContract.EXTRA_SENDER);
        String channel = intent.getStringExtra(ProxyContract.EXTRA_CHANNEL);
        String action = intent.getStringExtra(ProxyContract.EXTRA_ACTION);
        byte[] payload = intent.getByteArrayExtra(ProxyContract.EXTRA_PAYLOAD);
        int priority = intent.getIntExtra(ProxyContract.EXTRA_PRIORITY, -1);
        long appCorrelation = intent.getLongExtra(ProxyContract.EXTRA_CORRELATION_ID, 0);
        long appSendNanos = intent.getLongExtra(ProxyContract.EXTRA_SEND_NANOS, 0);
        long received = System.nanoTime();

        String problem = validate(sender, channel, action, payload, priority);
        if (problem == null && !declares(sender, channel)) {
            problem = "package " + sender + " does not declare channel '" + channel
                    + "' (AndroidManifest meta-data " + ProxyContract.META_CHANNELS + ")";
        }
        if (problem == null && !link.connected()) {
            problem = "RT cell not connected: " + link.describe();
        }
        long wireId = 0;
        int ring = 0;
        if (problem == null) {
            wireId = nextWireId++;
            Frame f = txFrame.clear();
            f.seq(wireId).sendTimeNanos(received);
            Frame.Intent fi = f.selectIntent();
            fi.action(action).channel(channel).sender(sender).senderPriority(priority).correlationId(wireId);
            fi.payload().set(payload, 0, payload.length);
            int len = FrameCodec.encode(f, txBuffer, 0);
            if (len < 0) {
                problem = "frame encoding failed: " + FrameCodec.describe(len);
            } else {
                ring = link.send(txBuffer, len, priority);
                if (ring < 0) {
                    problem = "RT cell not connected: " + link.describe();
                } else if (ring == 0) {
                    problem = "data ring for priority " + priority + " is full (frame dropped)";
                    stats.droppedFull++;
                }
            }
        }
        if (problem != null) {
            refuse(sender, channel, action, appCorrelation, problem);
            return;
        }
        long written = System.nanoTime();
        if (TRACE) {
            Log.d(TAG, "TRACE hop=" + (received - appSendNanos) + " encode+offer=" + (written - received));
        }
        stats.framesOut++;
        stats.channel(channel).out++;
        outstanding.put(wireId, new Outstanding(sender, appCorrelation,
                appSendNanos != 0 ? appSendNanos : received, written));
    }

    private static String validate(String sender, String channel, String action, byte[] payload, int priority) {
        if (sender == null || sender.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_SENDER + "' (the sending package)";
        }
        if (utf8(sender) > ProxyContract.MAX_SENDER_BYTES) {
            return "sender '" + sender + "' longer than " + ProxyContract.MAX_SENDER_BYTES + " bytes";
        }
        if (channel == null || channel.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_CHANNEL + "'";
        }
        if (utf8(channel) > ProxyContract.MAX_CHANNEL_BYTES) {
            return "channel longer than " + ProxyContract.MAX_CHANNEL_BYTES + " bytes";
        }
        if (action == null || action.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_ACTION + "'";
        }
        if (utf8(action) > ProxyContract.MAX_ACTION_BYTES) {
            return "action longer than " + ProxyContract.MAX_ACTION_BYTES + " bytes";
        }
        if (payload == null) {
            return "missing extra '" + ProxyContract.EXTRA_PAYLOAD + "' (byte[])";
        }
        if (payload.length > ProxyContract.MAX_PAYLOAD_BYTES) {
            return "payload of " + payload.length + " bytes exceeds " + ProxyContract.MAX_PAYLOAD_BYTES;
        }
        if (priority < 0 || priority > 99) {
            return "extra '" + ProxyContract.EXTRA_PRIORITY + "' must be an int 0..99, was " + priority;
        }
        return null;
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private void refuse(String sender, String channel, String action, long correlation, String reason) {
        stats.refused++;
        if (channel != null) {
            stats.channel(channel).refused++;
        }
        Log.e(TAG, "refused send from " + sender + " on channel '" + channel + "' action " + action + ": " + reason);
        if (sender == null || sender.isEmpty()) {
            return;
        }
        Intent r = new Intent(ProxyContract.ACTION_REFUSED);
        r.setPackage(sender);
        r.putExtra(ProxyContract.EXTRA_CHANNEL, channel);
        r.putExtra(ProxyContract.EXTRA_ACTION, action);
        r.putExtra(ProxyContract.EXTRA_CORRELATION_ID, correlation);
        r.putExtra(ProxyContract.EXTRA_REASON, reason);
        context.sendBroadcast(r);
    }

    // ------------------------------------------------------------------ channel declarations

    private boolean declares(String pkg, String channel) {
        List<String> apps = declaringApps().get(channel);
        return apps != null && apps.contains(pkg);
    }

    private Map<String, List<String>> declaringApps() {
        return declaringApps;
    }

    /** On the main looper (the PackageManager's thread): who declares which channel. */
    private void refreshDeclarations() {
        Map<String, List<String>> m = new HashMap<>();
        PackageManager pm = context.getPackageManager();
        List<ApplicationInfo> apps = pm.getInstalledApplications(PackageManager.GET_META_DATA);
        for (ApplicationInfo ai : apps) {
            Bundle md = ai.metaData;
            String declared = md == null ? null : md.getString(ProxyContract.META_CHANNELS);
            if (declared == null) {
                continue;
            }
            for (String c : declared.split(",")) {
                String ch = c.trim();
                if (!ch.isEmpty()) {
                    m.computeIfAbsent(ch, k -> new ArrayList<>()).add(ai.packageName);
                }
            }
        }
        for (List<String> l : m.values()) {
            Collections.sort(l);
        }
        declaringApps = m;
    }

    /** Forget cached declarations (the host calls this after install/uninstall too). */
    public void packagesChanged() {
        main.post(this::refreshDeclarations);
    }

    // ------------------------------------------------------------------ RT -> Android

    /** Called on the RtLink thread with a decoded intent frame. */
    void enqueueFromRt(Frame frame, int ring, long frameReadNanos) {
        Frame.Intent fi = frame.intent();
        Inbound in = new Inbound(fi.channelString(), fi.actionString(), fi.senderPriority(),
                java.util.Arrays.copyOf(fi.payload().array(), fi.payload().length()),
                fi.correlationId(), fi.rtReceiveNanos(), fi.rtReplyNanos(), frame.seq(), ring, frameReadNanos);
        handler.post(() -> accept(in));
    }

    private void accept(Inbound in) {
        in.acceptNanos = System.nanoTime();
        stats.framesIn++;
        stats.channel(in.channel).in++;
        in.arrival = arrivals++;
        pending.add(in);
        if (pending.size() > MAX_PENDING_DELIVERIES) {
            // Drop the least urgent, latest arrival: bounded queue, named policy.
            Inbound worst = null;
            for (Inbound p : pending) {
                if (worst == null || p.compareTo(worst) > 0) {
                    worst = p;
                }
            }
            pending.remove(worst);
            stats.droppedQueueFull++;
            Log.w(TAG, "delivery queue full: dropped " + worst.action + " (priority " + worst.priority + ")");
        }
        if (!delivering) {
            drainOne(); // already on the proxy's looper: no extra hop
        }
    }

    private void scheduleDrain() {
        if (!delivering && !drainPosted && !pending.isEmpty()) {
            drainPosted = true;
            handler.post(this::drainOne);
        }
    }

    private void drainOne() {
        drainPosted = false;
        if (delivering) {
            return;
        }
        Inbound in = pending.poll();
        if (in == null) {
            return;
        }
        List<String> targets = declaringApps().get(in.channel);
        if (targets == null || targets.isEmpty()) {
            stats.droppedUndeliverable++;
            stats.channel(in.channel).undeliverable++;
            link.countUndeliverable(in.ring);
            Log.w(TAG, "no installed app declares channel '" + in.channel + "': dropped " + in.action);
            scheduleDrain();
            return;
        }
        Outstanding req = outstanding.remove(in.correlationId);
        delivering = true;
        final int[] remaining = {targets.size()};
        // Result receiver without a scheduler: it runs on the main looper right after the last
        // app receiver returned, which is the moment measured; the bookkeeping goes back to the
        // proxy's thread.
        BroadcastReceiver done = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                long now = System.nanoTime();
                handler.post(() -> delivered(now));
            }

            private void delivered(long delivered) {
                if (--remaining[0] > 0) {
                    return;
                }
                stats.delivered++;
                if (TRACE) {
                    Log.d(TAG, "TRACE ring->proxy=" + (in.acceptNanos - in.frameReadNanos) + " proxy->delivered="
                            + (delivered - in.acceptNanos));
                }
                if (req != null) {
                    stats.roundTrips++;
                    latency.record(delivered - req.appSendNanos, req.frameWrittenNanos - req.appSendNanos,
                            delivered - in.frameReadNanos,
                            in.rtReplyNanos >= in.rtReceiveNanos ? in.rtReplyNanos - in.rtReceiveNanos : -1);
                }
                delivering = false;
                scheduleDrain();
            }
        };
        for (String pkg : targets) {
            Intent out = new Intent(in.action);
            out.setPackage(pkg);
            out.putExtra(ProxyContract.EXTRA_CHANNEL, in.channel);
            out.putExtra(ProxyContract.EXTRA_PAYLOAD, in.payload);
            out.putExtra(ProxyContract.EXTRA_PRIORITY, in.priority);
            // A reply carries the requesting app's own correlation id, only to that app.
            long id = req != null && req.sender.equals(pkg) ? req.appCorrelation : 0;
            out.putExtra(ProxyContract.EXTRA_CORRELATION_ID, id);
            out.putExtra(ProxyContract.EXTRA_RT_RECEIVE_NANOS, in.rtReceiveNanos);
            out.putExtra(ProxyContract.EXTRA_RT_REPLY_NANOS, in.rtReplyNanos);
            out.putExtra(ProxyContract.EXTRA_SEQ, in.seq);
            context.sendOrderedBroadcast(out, null, done, null, 0, null, null);
        }
    }

    // ------------------------------------------------------------------ stats (any thread)

    /** The proxy's counters as a JSON object. */
    public String statsJson() {
        StringBuilder sb = new StringBuilder(512);
        synchronized (stats) {
            sb.append('{');
            sb.append("\"connected\":").append(link.connected());
            sb.append(",\"link\":\"").append(ProxyStats.escape(link.describe())).append('"');
            sb.append(",\"region\":\"").append(ProxyStats.escape(link.regionPath())).append('"');
            sb.append(",\"framesIn\":").append(stats.framesIn);
            sb.append(",\"framesOut\":").append(stats.framesOut);
            sb.append(",\"delivered\":").append(stats.delivered);
            sb.append(",\"refused\":").append(stats.refused);
            sb.append(",\"droppedFull\":").append(stats.droppedFull);
            sb.append(",\"droppedUndeliverable\":").append(stats.droppedUndeliverable);
            sb.append(",\"droppedQueueFull\":").append(stats.droppedQueueFull);
            sb.append(",\"droppedUndecodable\":").append(link.undecodable());
            sb.append(",\"roundTrips\":").append(stats.roundTrips);
            sb.append(",\"peerRestarts\":").append(link.peerRestarts());
            sb.append(",\"attaches\":").append(link.attaches());
            sb.append(",\"pendingDeliveries\":").append(pending.size());
            sb.append(",\"channels\":{");
            boolean first = true;
            for (Map.Entry<String, ProxyStats.Channel> e : new TreeMap<>(stats.channels).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                ProxyStats.Channel c = e.getValue();
                sb.append('"').append(ProxyStats.escape(e.getKey())).append("\":{\"out\":").append(c.out)
                        .append(",\"in\":").append(c.in).append(",\"refused\":").append(c.refused)
                        .append(",\"undeliverable\":").append(c.undeliverable).append('}');
            }
            sb.append("},\"rings\":").append(link.ringsJson());
            sb.append('}');
        }
        return sb.toString();
    }

    public LatencyLog latency() {
        return latency;
    }

    // ------------------------------------------------------------------ records

    private static final class Outstanding {
        final String sender;
        final long appCorrelation;
        final long appSendNanos;
        final long frameWrittenNanos;

        Outstanding(String sender, long appCorrelation, long appSendNanos, long frameWrittenNanos) {
            this.sender = sender;
            this.appCorrelation = appCorrelation;
            this.appSendNanos = appSendNanos;
            this.frameWrittenNanos = frameWrittenNanos;
        }
    }

    static final class Inbound implements Comparable<Inbound> {
        final String channel;
        final String action;
        final int priority;
        final byte[] payload;
        final long correlationId;
        final long rtReceiveNanos;
        final long rtReplyNanos;
        final long seq;
        final int ring;
        final long frameReadNanos;
        long arrival;
        long acceptNanos;

        Inbound(String channel, String action, int priority, byte[] payload, long correlationId,
                long rtReceiveNanos, long rtReplyNanos, long seq, int ring, long frameReadNanos) {
            this.channel = channel;
            this.action = action;
            this.priority = priority;
            this.payload = payload;
            this.correlationId = correlationId;
            this.rtReceiveNanos = rtReceiveNanos;
            this.rtReplyNanos = rtReplyNanos;
            this.seq = seq;
            this.ring = ring;
            this.frameReadNanos = frameReadNanos;
        }

        /** Higher priority first, then first come. */
        @Override
        public int compareTo(Inbound o) {
            if (priority != o.priority) {
                return Integer.compare(o.priority, priority);
            }
            return Long.compare(arrival, o.arrival);
        }
    }
}
