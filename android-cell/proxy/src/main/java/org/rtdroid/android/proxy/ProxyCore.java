package org.rtdroid.android.proxy;

import android.content.Context;
import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.os.Handler;
import android.os.HandlerThread;
import android.os.Looper;
import android.util.Log;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;

/**
 * The proxy, wired from its parts: {@link ProxySender} (Android → RT), {@link ChannelTable}
 * (who declares which channel), {@link DeliveryQueue} (RT → Android), {@link ProxyStats} and the
 * region link {@link RtLink}. Threads: the proxy's own looper thread "rts-proxy-main" (on a
 * device the proxy is a separate process with its own main thread; in the cell it must not queue
 * behind the apps' UI work on the shared main looper) runs sends and delivery scheduling; the
 * {@link RtLink} thread owns the consumer side of the region and hands decoded intents over
 * through {@link #enqueueFromRt}; the framework's main looper runs the apps' receivers and the
 * channel table (it reads the PackageManager).
 */
public final class ProxyCore {
    public static final String TAG = "RTsProxy";
    /** -Dorg.rtdroid.proxy.trace=true: log each hop's time (diagnosis; off by default). */
    static final boolean TRACE = Boolean.getBoolean("org.rtdroid.proxy.trace");

    private final HandlerThread thread;
    private final Handler handler;
    private final RtLink link;
    private final ChannelTable channels;
    private final ProxySender sender;
    private final DeliveryQueue deliveries;
    private final ProxyStats stats = new ProxyStats();
    private final LatencyLog latency = new LatencyLog(8192);

    /** The proxy of the service's process; {@link #start} attaches it to the region. */
    ProxyCore(Context context) {
        Context app = context.getApplicationContext() != null ? context.getApplicationContext() : context;
        String region = System.getProperty(ProxyContract.META_REGION);
        if (region == null) {
            region = regionFromManifest(context);
        }
        this.thread = new HandlerThread("rts-proxy-main", android.os.Process.THREAD_PRIORITY_FOREGROUND);
        this.thread.start();
        this.handler = new Handler(thread.getLooper());
        this.link = new RtLink(region, this, peerTimeoutNanos());
        this.channels = new ChannelTable(app, new Handler(Looper.getMainLooper()));
        this.sender = new ProxySender(app, link, channels, stats);
        this.deliveries = new DeliveryQueue(app, handler, link, channels, sender, stats, latency);
    }

    void start() {
        channels.start();
        link.start();
        Log.i(TAG, "proxy started, region " + link.regionPath());
    }

    void stop() {
        link.close();
        thread.quitSafely();
        channels.stop();
        Log.i(TAG, "proxy stopped");
    }

    private static long peerTimeoutNanos() {
        String ms = System.getProperty(ProxyContract.PROP_PEER_TIMEOUT_MS);
        try {
            return ms == null ? Region.DEFAULT_PEER_TIMEOUT_NANOS : Math.max(1, Long.parseLong(ms)) * 1_000_000L;
        } catch (NumberFormatException e) {
            Log.w(TAG, ProxyContract.PROP_PEER_TIMEOUT_MS + " '" + ms + "' is not a number: using the default");
            return Region.DEFAULT_PEER_TIMEOUT_NANOS;
        }
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

    /** Handles one SEND intent on the proxy's looper; on refusal the sender gets {@link ProxyContract#ACTION_REFUSED}. */
    void send(Intent intent) {
        if (Looper.myLooper() != thread.getLooper()) {
            handler.post(() -> sender.send(intent));
            return;
        }
        sender.send(intent);
    }

    /** Called on the RtLink thread with a decoded intent frame. */
    void enqueueFromRt(Frame frame, int ring, long frameReadNanos) {
        deliveries.enqueueFromRt(frame, ring, frameReadNanos);
    }

    /** Re-read the channel declarations (the host calls this after install/uninstall too). */
    public void packagesChanged() {
        channels.packagesChanged();
    }

    /** The proxy's counters as a JSON object (any thread). */
    public String statsJson() {
        return stats.toJson(link, deliveries.pending());
    }

    /** The proxy's recent sends and broadcasts ending at or after {@code sinceNanos} (JSON), for traces. */
    public String eventsJson(long sinceNanos) {
        return stats.events.toJson(sinceNanos);
    }

    public LatencyLog latency() {
        return latency;
    }
}
