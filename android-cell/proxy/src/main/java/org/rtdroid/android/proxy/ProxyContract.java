package org.rtdroid.android.proxy;

import org.rtdroid.android.app.ProxyIntents;
import org.rtdroid.xcc.XccBounds;

/**
 * The Intent contract between apps and RTsProxyService (docs/android-cell.md, "Talking to the
 * RT cell"). What apps use is said once in the apps' library, {@link ProxyIntents} (javac inlines
 * its constants: the proxy does not carry the library); the rest is the proxy's and the cell's own.
 */
public final class ProxyContract {
    private ProxyContract() {
    }

    public static final String PROXY_PACKAGE = ProxyIntents.PROXY_PACKAGE;
    public static final String PROXY_SERVICE = ProxyIntents.PROXY_SERVICE;

    /** startService: send extras {@link #EXTRA_CHANNEL} … to the RT cell. */
    public static final String ACTION_SEND = ProxyIntents.ACTION_SEND;
    /**
     * The signature-level permission the proxy defines (its AndroidManifest.xml) and requires of
     * every caller of {@link #PROXY_SERVICE}: held only by apps signed with the proxy's certificate.
     */
    public static final String PERMISSION_CROSS_CONTEXT = "org.rtdroid.permission.CROSS_CONTEXT";
    /** Broadcast to the sender's package when a send is refused; extra {@link #EXTRA_REASON}. */
    public static final String ACTION_REFUSED = ProxyIntents.ACTION_REFUSED;

    /** Application meta-data: comma-separated cross-context channels the app may use. */
    public static final String META_CHANNELS = "org.rtdroid.channels";
    /** Proxy meta-data / system property: the region file to attach to. */
    public static final String META_REGION = "org.rtdroid.region";
    /**
     * System property: the region spec's peer_timeout in ms, how long the RT peer's heartbeat may
     * stand still (by this cell's clock) before it is unresponsive; default 1000. An RT cell in
     * an emulator's virtual time beats every 100 ms of its own time, several times that of the host's.
     */
    public static final String PROP_PEER_TIMEOUT_MS = "org.rtdroid.peerTimeoutMs";

    public static final String EXTRA_CHANNEL = ProxyIntents.EXTRA_CHANNEL;
    public static final String EXTRA_ACTION = ProxyIntents.EXTRA_ACTION;
    public static final String EXTRA_PAYLOAD = ProxyIntents.EXTRA_PAYLOAD;
    public static final String EXTRA_PRIORITY = ProxyIntents.EXTRA_PRIORITY;
    public static final String EXTRA_CORRELATION_ID = ProxyIntents.EXTRA_CORRELATION_ID;
    public static final String EXTRA_SENDER = ProxyIntents.EXTRA_SENDER;
    /**
     * The package whose code called startService, stamped by the cell's system server from the
     * calling code's identity (as a device's Binder.getCallingUid()), overwriting anything an app
     * put there. The proxy takes the frame's sender from it, never from the app's data: an app
     * that names another package in {@link #EXTRA_SENDER} is refused.
     */
    public static final String EXTRA_CALLING_PACKAGE = "org.rtdroid.proxy.CALLING_PACKAGE";
    /** The app's System.nanoTime() when it sent: the start of the measured round trip. */
    public static final String EXTRA_SEND_NANOS = ProxyIntents.EXTRA_SEND_NANOS;
    public static final String EXTRA_REASON = ProxyIntents.EXTRA_REASON;
    public static final String EXTRA_RT_RECEIVE_NANOS = ProxyIntents.EXTRA_RT_RECEIVE_NANOS;
    public static final String EXTRA_RT_REPLY_NANOS = ProxyIntents.EXTRA_RT_REPLY_NANOS;
    public static final String EXTRA_SEQ = ProxyIntents.EXTRA_SEQ;

    /**
     * Any broadcast in the cell: the sender's priority, an int 0..99 on the RT cell's scale
     * (absent = 0). The cell's broadcast queue delivers most urgent first, first come within a
     * priority; 50 and above is real-time (its own delivery thread). Intents from the RT cell
     * carry their RT sender's priority here. Out of range: sendBroadcast throws
     * IllegalArgumentException. From 50 up the sender must hold
     * {@link #PERMISSION_REALTIME_BROADCAST}, else sendBroadcast throws SecurityException.
     */
    public static final String EXTRA_SENDER_PRIORITY = "org.rtdroid.intent.extra.SENDER_PRIORITY";
    /**
     * The signature-level permission the proxy defines (its AndroidManifest.xml) and requires of a
     * sender that claims a real-time priority (50..99) in {@link #EXTRA_SENDER_PRIORITY}: without it
     * any app could put its broadcasts ahead of the RT cell's.
     */
    public static final String PERMISSION_REALTIME_BROADCAST = "org.rtdroid.permission.REALTIME_BROADCAST";
    /**
     * Set (true) on the intent an ordered broadcast's result receiver gets when the broadcast was
     * dropped by the queue's overflow policy instead of delivered.
     */
    public static final String EXTRA_BROADCAST_DROPPED = "org.rtdroid.intent.extra.BROADCAST_DROPPED";
    /**
     * Set (a {@code System.nanoTime()}) on the intent an ordered broadcast's result receiver gets
     * when its receivers ran in apps' own processes: when the last of them returned there. Absent,
     * the result receiver's own call is that moment (the receivers ran on this main looper).
     */
    public static final String EXTRA_RECEIVED_NANOS = "org.rtdroid.intent.extra.RECEIVED_NANOS";

    // the wire's bounds (XccBounds, generated from bridge/proto/xcc.options; inlined by javac)
    public static final int MAX_CHANNEL_BYTES = XccBounds.MAX_INTENT_CHANNEL_BYTES;
    public static final int MAX_ACTION_BYTES = XccBounds.MAX_INTENT_ACTION_BYTES;
    public static final int MAX_PAYLOAD_BYTES = XccBounds.MAX_INTENT_PAYLOAD_BYTES;
    public static final int MAX_SENDER_BYTES = XccBounds.MAX_INTENT_SENDER_BYTES;
}
